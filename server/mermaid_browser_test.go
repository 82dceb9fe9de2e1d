package server_test

import (
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"fencelab/views/paths"
)

// mermaidSource is Mermaid's own bundle, from npm (mermaid@11), kept out
// of the checkout as axe-core is: FENCELAB_MERMAID names it.
func mermaidSource(t *testing.T) string {
	t.Helper()
	if path := os.Getenv("FENCELAB_MERMAID"); path != "" {
		if b, err := os.ReadFile(path); err == nil {
			return string(b)
		}
	}
	if os.Getenv("FENCELAB_BROWSER_TESTS") == "required" {
		t.Fatalf("Mermaid is required: set FENCELAB_MERMAID to mermaid.min.js (npm install mermaid@11)")
	}
	t.Skip("no Mermaid (set FENCELAB_MERMAID to mermaid.min.js): the Mermaid check skipped")
	return ""
}

var mermaidBlock = regexp.MustCompile("(?s)\n```mermaid\n(.*?)```\n")

// TestMermaidParses takes the Markdown export of every built-in, under
// the default policies and under all nine, and of runs with long actor
// names and hostile text, and hands each Mermaid block to Mermaid's own
// parser (mermaid.parse), in Chromium: each is a sequenceDiagram it reads.
func TestMermaidParses(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped under -short")
	}
	src := mermaidSource(t)
	base := startServer(t)
	ctx := newBrowser(t)
	run(t, ctx, "a blank page with Mermaid", chromedp.Navigate("about:blank"))
	eval[chromedp.Void](t, ctx, src+";mermaid.initialize({startOnLoad: false});undefined")
	var links []string
	for _, b := range testLibrary(t).List {
		links = append(links, paths.ScenarioMarkdownPath(b.Name), paths.ScenarioMarkdownPath(b.Name)+"?p="+strings.Join(everyPolicy(), "&p="))
	}
	long := saveEdited(t, base, "delayed-request", func(s map[string]any) {
		for _, e := range s["events"].([]any) {
			e := e.(map[string]any)
			if a, ok := e["actor"].(string); ok {
				e["actor"] = map[string]string{"A": "worker-1", "B": "reconciler-0042x"}[a]
			}
			if _, ok := e["value"]; ok {
				e["value"] = "v; #59 %% <b>x</b> ``` -->> A: end"
			}
			e["note"] = "a note; with # and %% and\nnothing else"
		}
	})
	links = append(links, paths.RunMarkdownPath(long))
	for _, path := range links {
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, res.StatusCode)
		}
		md := string(body)
		m := mermaidBlock.FindStringSubmatch(md)
		if m == nil {
			t.Errorf("GET %s: no Mermaid block", path)
			continue
		}
		if !strings.HasPrefix(m[1], "sequenceDiagram\n") {
			t.Errorf("GET %s: the Mermaid block is not a sequenceDiagram", path)
		}
		kind, err := chromedp.Run(ctx, chromedp.Evaluate[string](`mermaid.parse(`+jsString(m[1])+`).then(r => r && r.diagramType || "parsed", e => "ERROR " + e.message)`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("mermaid.parse on %s: %v", path, err)
		}
		if kind != "sequence" {
			t.Errorf("GET %s: Mermaid reads its block as %q, want a sequence diagram:\n%s", path, kind, m[1])
		}
	}
}
