package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fencelab/lab"
	"fencelab/scenarios"
	"fencelab/server"
	"fencelab/server/store/sqlite"
)

// labOn is a server on the SQLite file at path with the client budgets
// off, so that one test client may save as fast as it likes.
func labOn(t *testing.T, path string) (*server.Server, *sqlite.DB) {
	t.Helper()
	db, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	secret, err := db.Secret(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	library, err := builtins()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Store: db, Library: library, Secret: secret,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Limits: server.Limits{Saves: -1, SaveBytes: -1}})
	if err != nil {
		t.Fatal(err)
	}
	return srv, db
}

// builtins parses the built-in library once for every server the tests
// start; a server only reads it.
var builtins = sync.OnceValues(func() (*lab.Library, error) {
	return lab.LoadLibrary(scenarios.FS, scenarios.Order())
})

// saveThrough saves body through h and returns the run's id, or "" and the status.
func saveThrough(h http.Handler, body []byte) (string, int) {
	req := httptest.NewRequest(http.MethodPost, "/api/runs", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var saved struct{ ID string }
	if rec.Code != http.StatusCreated || json.Unmarshal(rec.Body.Bytes(), &saved) != nil {
		return "", rec.Code
	}
	return saved.ID, rec.Code
}

func statusOf(h http.Handler, target string) int {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	return rec.Code
}

// TestAdminHide: `fencelab admin` hides and shows a run of a running
// server's database, lists it, and says clearly what is wrong with an
// unknown id, a missing file or a database it may not write.
func TestAdminHide(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "lab.db")
	srv, _ := labOn(t, path)
	id, code := saveThrough(srv, retitler(t)("to be hidden"))
	if id == "" {
		t.Fatalf("save = %d, want 201", code)
	}
	adminRun := func(args ...string) (string, int) {
		var out, errOut bytes.Buffer
		code := exitCode(run(append([]string{"admin"}, args...), nil, &out, &errOut), &errOut)
		return out.String() + errOut.String(), code
	}
	tests := []struct {
		args   []string
		code   int
		words  string
		status int // of the run's page afterwards
	}{
		{[]string{"hide", id, "--reason", "It named a real person.", "--db", path}, 0, "hid run " + id, http.StatusGone},
		{[]string{"list", "--recent", "5", "--db", path}, 0, `"It named a real person."`, http.StatusGone},
		{[]string{"unhide", "--db", path, id}, 0, "shown again", http.StatusOK},
		{[]string{"hide", "AAAAAAAAAAAAAAAA", "--reason", "x", "--db", path}, exitNoRun, "no saved run has the id", http.StatusOK},
		{[]string{"hide", id, "--db", path}, 2, "needs --reason", http.StatusOK},
		{[]string{"hide", id, "--reason", "x", "--db", path + ".typo"}, 1, "no database at", http.StatusOK},
		{[]string{"frobnicate"}, 2, "unknown admin command", http.StatusOK},
	}
	for _, tt := range tests {
		out, code := adminRun(tt.args...)
		if code != tt.code || !strings.Contains(out, tt.words) {
			t.Errorf("fencelab admin %q = exit %d, %q; want exit %d saying %q", tt.args, code, out, tt.code, tt.words)
		}
		if got := statusOf(srv, "/r/"+id); got != tt.status {
			t.Errorf("after fencelab admin %q: GET /r/%s = %d, want %d", tt.args, id, got, tt.status)
		}
	}
	if os.Geteuid() != 0 { // root writes a read-only file anyway
		os.Chmod(path, 0o400)
		defer os.Chmod(path, 0o600)
		if out, code := adminRun("hide", id, "--reason", "x", "--db", path); code != 1 || !strings.Contains(out, "for writing") {
			t.Errorf("fencelab admin hide on a read-only file = exit %d, %q; want exit 1 saying it cannot write", code, out)
		}
	}
}

// TestBackupWhileSaving: a backup taken while clients save holds every
// run acknowledged before it began; a server on the copy serves each under
// the same id, and gives the same scenario the same id again, since the
// link secret travels with the copy.
func TestBackupWhileSaving(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv, _ := labOn(t, filepath.Join(dir, "lab.db"))
	titled := retitler(t)
	var mu sync.Mutex
	var acked []string
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				if id, _ := saveThrough(srv, titled(fmt.Sprintf("saver %d run %d", w, i))); id != "" {
					mu.Lock()
					acked = append(acked, id)
					mu.Unlock()
				}
			}
		})
	}
	saved := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(acked)
	}
	whileSaving(300*time.Millisecond, 8, saved)
	mu.Lock()
	before := append([]string(nil), acked...)
	mu.Unlock()
	copyPath := filepath.Join(dir, "copy.db")
	var out, errOut bytes.Buffer
	start := time.Now()
	if err := run([]string{"backup", "--db", filepath.Join(dir, "lab.db"), copyPath}, nil, &out, &errOut); err != nil {
		t.Fatalf("fencelab backup: %v\n%s", err, errOut.String())
	}
	took := time.Since(start)
	whileSaving(100*time.Millisecond, saved()+4, saved) // saves go on after the backup too
	cancel()
	wg.Wait()
	if len(before) == 0 {
		t.Fatal("no save was acknowledged before the backup began")
	}
	restored, _ := labOn(t, copyPath)
	for _, id := range before {
		if code := statusOf(restored, "/api/runs/"+id); code != http.StatusOK {
			t.Errorf("run %s, acknowledged before the backup began: GET on the restored copy = %d, want 200", id, code)
		}
	}
	want, _ := saveThrough(srv, titled("saved on both"))
	if got, _ := saveThrough(restored, titled("saved on both")); got != want || got == "" {
		t.Errorf("one scenario saved on the original and on the copy got ids %q and %q, want one id", want, got)
	}
	t.Logf("backup of %d runs saved before it (%d in all) took %s; %s", len(before), len(acked), took, strings.TrimSpace(out.String()))
}

// whileSaving lets the savers run for d (under -short not at all), and
// then until saved() reaches n: a few saves on each side of the backup
// are the situation under test, and on a busy machine they may take
// longer than d. After 10 s it returns anyway; the caller's checks then
// say what is missing.
func whileSaving(d time.Duration, n int, saved func() int) {
	if !testing.Short() {
		time.Sleep(d)
	}
	for deadline := time.Now().Add(10 * time.Second); saved() < n && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}

// TestAdminPurge: `fencelab admin purge` deletes the runs one client
// saved, or those of a time window; --dry-run lists them and deletes
// nothing; hidden runs stay hidden; no filter at all is refused.
func TestAdminPurge(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "lab.db")
	srv, _ := labOn(t, path)
	retitle := retitler(t)
	var flood []string // saved from httptest's 192.0.2.1
	for i := range 3 {
		id, code := saveThrough(srv, retitle(fmt.Sprint("flood ", i)))
		if id == "" {
			t.Fatalf("save = %d", code)
		}
		flood = append(flood, id)
	}
	req := httptest.NewRequest(http.MethodPost, "/api/runs", bytes.NewReader(retitle("polite")))
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = "198.51.100.9:5000"
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	var polite struct{ ID string }
	if rec.Code != http.StatusCreated || json.Unmarshal(rec.Body.Bytes(), &polite) != nil {
		t.Fatalf("polite save = %d", rec.Code)
	}
	adminRun := func(args ...string) (string, int) {
		var out, errOut bytes.Buffer
		code := exitCode(run(append([]string{"admin"}, args...), nil, &out, &errOut), &errOut)
		return out.String() + errOut.String(), code
	}
	for _, id := range flood { // the pages of a run are kept in memory once rendered
		for _, p := range []string{"/r/" + id, "/r/" + id + ".md", "/api/runs/" + id} {
			if got := statusOf(srv, p); got != http.StatusOK {
				t.Fatalf("before the purge: GET %s = %d", p, got)
			}
		}
	}
	if out, code := adminRun("hide", flood[0], "--reason", "Hidden before the purge.", "--db", path); code != 0 {
		t.Fatalf("hide = %d %s", code, out)
	}
	out, code := adminRun("purge", "--client", "192.0.2.0/24", "--dry-run", "--db", path)
	if code != 0 || !strings.Contains(out, "would purge (dry run, nothing deleted) 2 runs") || !strings.Contains(out, flood[1]) || strings.Contains(out, flood[0]) {
		t.Errorf("purge --dry-run = exit %d:\n%s\nwant the 2 shown runs of 192.0.2.1", code, out)
	}
	for _, usage := range [][]string{{"purge", "--db", path}, {"purge", "--client", "nonsense", "--db", path},
		{"purge", "--since", "yesterday", "--db", path}, {"purge", "--since", "1h", "--until", "2h", "--db", path}} {
		if out, code := adminRun(usage...); code != 2 {
			t.Errorf("fencelab admin %q = exit %d %q, want 2", usage, code, out)
		}
	}
	if out, code := adminRun("purge", "--client", "192.0.2.1", "--db", path); code != 0 || !strings.Contains(out, "purged 2 runs") {
		t.Errorf("purge = exit %d:\n%s", code, out)
	}
	for id, want := range map[string]int{flood[0]: http.StatusGone, flood[1]: http.StatusNotFound, flood[2]: http.StatusNotFound, polite.ID: http.StatusOK} {
		for _, p := range []string{"/r/" + id, "/r/" + id + ".md", "/api/runs/" + id} {
			if got := statusOf(srv, p); got != want {
				t.Errorf("after the purge: GET %s = %d, want %d", p, got, want)
			}
		}
	}
	if out, code := adminRun("purge", "--since", "1h", "--dry-run", "--db", path); code != 0 || !strings.Contains(out, "1 run,") || !strings.Contains(out, polite.ID) {
		t.Errorf("purge --since 1h --dry-run = exit %d:\n%s\nwant the polite run alone", code, out)
	}
}
