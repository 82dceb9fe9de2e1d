package main

import (
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"testing"

	"fencelab/server/store/storetest"
)

// TestTakedownOnTwoServers: `fencelab admin hide`, run beside two serving
// processes on one PostgreSQL, makes the run answer 410 on both at the
// next request, pages each had cached included; unhidden, it answers 200
// on both again.
func TestTakedownOnTwoServers(t *testing.T) {
	dsn, _ := storetest.FreshSchema(t, storetest.PostgresURL(t))
	bin := buildFencelab(t)
	a, b := startServe(t, bin, dsn), startServe(t, bin, dsn)
	id := saveRun(t, a.base, retitler(t)("taken down on every server"))
	paths := []string{"/r/" + id, "/r/" + id + ".json", "/r/" + id + ".png", "/r/" + id + "/embed", "/api/runs/" + id}
	check := func(when string, want int) {
		t.Helper()
		for _, base := range []string{a.base, b.base} {
			for _, p := range append(paths, "/oembed?url="+url.QueryEscape(base+"/r/"+id)) {
				if got := getStatus(t, base+p); got != want {
					t.Errorf("%s: GET %s%s = %d, want %d", when, base, p, got, want)
				}
			}
		}
	}
	check("before hiding (the pages are cached now)", http.StatusOK)
	admin := func(args ...string) {
		t.Helper()
		out, err := exec.Command(bin, append([]string{"admin"}, append(args, "--db", dsn)...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("fencelab admin %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	admin("hide", id, "--reason", "Hidden on request.")
	check("right after fencelab admin hide", http.StatusGone)
	admin("unhide", id)
	check("right after fencelab admin unhide", http.StatusOK)
}
