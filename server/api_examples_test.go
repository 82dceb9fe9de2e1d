package server_test

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAPIExamples runs the Go, Python and JavaScript examples of
// docs/api.md, as written there, against a test server: each prints every
// policy's final value and worst violation and the link of the run it
// saved. It needs go, python3 and node; missing ones skip, but fail when
// FENCELAB_BROWSER_TESTS=required (CI, which installs them).
func TestAPIExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs other toolchains: skipped under -short")
	}
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "api.md"))
	if err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(newTestServer(t))
	t.Cleanup(web.Close)
	root, _ := filepath.Abs("..")
	for _, ex := range []struct{ lang, file, tool string }{
		{"go", "example.go", "go"}, {"python", "example.py", "python3"}, {"js", "example.mjs", "node"},
	} {
		t.Run(ex.lang, func(t *testing.T) {
			m := regexp.MustCompile("(?s)\n```" + ex.lang + "\n(.*?)```\n").FindSubmatch(doc)
			if m == nil {
				t.Fatalf("docs/api.md has no %s example", ex.lang)
			}
			tool, err := exec.LookPath(ex.tool)
			if err != nil {
				if os.Getenv("FENCELAB_BROWSER_TESTS") == "required" {
					t.Fatalf("%s is required to run the %s example: %v", ex.tool, ex.lang, err)
				}
				t.Skipf("no %s: the %s example skipped", ex.tool, ex.lang)
			}
			dir := t.TempDir()
			src := filepath.Join(dir, ex.file)
			if err := os.WriteFile(src, m[1], 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{src}
			if ex.lang == "go" {
				args = []string{"run", src}
			}
			cmd := exec.Command(tool, args...)
			cmd.Dir = root // the examples read scenarios/ from the repository
			cmd.Env = append(os.Environ(), "FENCELAB_URL="+web.URL)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", ex.tool, ex.file, err, out)
			}
			for _, want := range []string{"unfenced: result = old-result, stale-overwrite at step 8", "fenced: result = new-result, clean", "saved: "} {
				if !strings.Contains(string(out), want) {
					t.Errorf("the %s example printed\n%s\nwant a line %q", ex.lang, out, want)
				}
			}
		})
	}
}
