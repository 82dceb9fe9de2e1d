package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestImportSave runs fencelab import --save against a lab: the link it
// prints is the saved import, whose page, Markdown and picture say what
// the logs say the resource did; with --skew the orderings are kept.
// A --save that is no lab, or no URL, fails with a sentence that says so.
func TestImportSave(t *testing.T) {
	t.Parallel()
	srv, _ := labOn(t, filepath.Join(t.TempDir(), "lab.db"))
	ts := httptest.NewServer(srv)
	defer ts.Close()
	dir := filepath.Join("..", "..", "docs", "import")
	args := []string{"import", filepath.Join(dir, "scheduler.jsonl"), filepath.Join(dir, "worker-1.log"), filepath.Join(dir, "worker-2.log"),
		filepath.Join(dir, "storage.csv"), "--map", filepath.Join(dir, "mapping.json")}
	saved := regexp.MustCompile(`saved: (http://\S+/r/[A-Za-z0-9_-]+)\n`)

	save := func(t *testing.T, extra ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if err := run(append(append(args, extra...), "--save", ts.URL), strings.NewReader(""), &out, &errb); err != nil {
			t.Fatalf("fencelab import --save: %v\n%s", err, errb.String())
		}
		m := saved.FindStringSubmatch(errb.String())
		if m == nil || !strings.HasPrefix(m[1], ts.URL+"/r/") {
			t.Fatalf("fencelab import --save: stderr %q names no saved run of %s", errb.String(), ts.URL)
		}
		return m[1]
	}
	fetch := func(t *testing.T, url string) string {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s = %d %.300s", url, resp.StatusCode, b)
		}
		return string(b)
	}

	link := save(t)
	page := fetch(t, link)
	for _, want := range []string{"What the logs say the resource did", "expected (unfenced)", "storage.csv:4", "observed-agrees",
		"the resource behaved like <code>unfenced</code>: it applied token 41 after it had applied 42 (step 11, stale-overwrite)"} {
		if !strings.Contains(page, want) {
			t.Errorf("GET %s: the saved import lacks %q", link, want)
		}
	}
	if md := fetch(t, link+".md"); !strings.Contains(md, "- ✓ **unfenced** the resource behaved like `unfenced`") {
		t.Errorf("GET %s.md lacks the verdicts:\n%.800s", link, md)
	}
	if png := fetch(t, link+".png"); !strings.HasPrefix(png, "\x89PNG") {
		t.Errorf("GET %s.png is no PNG", link)
	}

	skewed := save(t, "--skew", "50ms")
	if skewed == link {
		t.Errorf("the import with --skew saved under the link of the one without")
	}
	if page := fetch(t, skewed); !strings.Contains(page, "Every ordering the clocks allow (skew 50ms)") {
		t.Errorf("GET %s: the saved import with --skew 50ms shows no orderings", skewed)
	}

	notLab := httptest.NewServer(http.NotFoundHandler())
	defer notLab.Close()
	for _, tt := range []struct{ base, words string }{
		{notLab.URL, "is it a fencelab server?"},
		{"ftp://example.invalid", "is not an http:// or https:// URL"},
	} {
		var out, errb bytes.Buffer
		err := run(append(args, "--save", tt.base), strings.NewReader(""), &out, &errb)
		if code := exitCode(err, &errb); code == 0 || !strings.Contains(errb.String(), tt.words) {
			t.Errorf("fencelab import --save %s = exit %d, stderr %q; want a failure saying %q", tt.base, code, errb.String(), tt.words)
		}
	}
}
