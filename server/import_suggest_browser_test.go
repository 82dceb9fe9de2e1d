package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"fencelab/views/paths"
)

// TestImportFirstStepBrowser chooses the walkthrough's four logs on the
// import page and, before Import is pressed, sees what the logs look like:
// each file's format and its message texts with their counts. Without
// the script, "Look at the logs" posts for the same section, and "Try the
// example logs" fills the page and imports. The page with the section
// passes axe-core when it is there; the screenshots are kept.
func TestImportFirstStepBrowser(t *testing.T) {
	ctx := newBrowser(t)
	base := startServer(t)
	var files []string
	for _, n := range []string{"scheduler.jsonl", "worker-1.log", "worker-2.log", "storage.csv"} {
		p, err := filepath.Abs(filepath.Join("..", "docs", "import", n))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	run(t, ctx, "open the import page", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(base+paths.RouteImport))
	keepFull(t, ctx, "import-before-1280")
	noReload(t, ctx)
	run(t, ctx, "choose the logs", chromedp.SetUploadFiles(chromedp.ID("upload"), files))
	waitFor(t, ctx, "the look at the logs", `document.querySelectorAll("#import-suggest .suggest-file").length === 4`)
	checkNoReload(t, ctx, "the look at the logs")
	heads := eval[string](t, ctx, `[...document.querySelectorAll(".suggest-file h3")].map(h => h.textContent).join(" | ")`)
	for _, want := range []string{"scheduler.jsonl: jsonl", "storage.csv: csv", "worker-1.log: logfmt"} {
		if !strings.Contains(heads, want) {
			t.Errorf("the files' heads %q lack %q", heads, want)
		}
	}
	if got := eval[string](t, ctx, `document.querySelector(".suggest-file .suggest-messages tbody tr").textContent`); !strings.Contains(got, "lease granted 2scheduler.jsonl:2") {
		t.Errorf("the scheduler's most frequent text = %q, want lease granted, 2 lines, first at scheduler.jsonl:2", got)
	}
	if eval[int](t, ctx, `document.querySelectorAll(".import-result").length`) != 0 {
		t.Errorf("the page imported before Import was pressed")
	}
	checkNoSideScroll(t, ctx, 1280)
	keepFull(t, ctx, "import-suggest-1280")
	auditHere(t, ctx, "the import page with the look at the logs")

	// Without the script the buttons post the form.
	scripts(t, ctx, false)
	run(t, ctx, "open the page without the script", chromedp.Navigate(base+paths.RouteImport),
		chromedp.SetUploadFiles(chromedp.ID("upload"), files[:2]),
		chromedp.Click(chromedp.CSS(`button[value="suggest"]`)),
		chromedp.WaitVisible(chromedp.CSS(".import-suggest")))
	if n := eval[int](t, ctx, `document.querySelectorAll(".suggest-file").length`); n != 2 {
		t.Errorf("without the script, Look at the logs shows %d files, want 2", n)
	}
	run(t, ctx, "try the example logs", chromedp.Click(chromedp.CSS(`button[value="example"]`)),
		chromedp.WaitVisible(chromedp.CSS(".import-against")))
	if verdict := eval[string](t, ctx, `document.querySelector(".import-against li").textContent`); !strings.Contains(verdict, "behaved like unfenced") {
		t.Errorf("the example's first verdict = %q, want unfenced agreeing", verdict)
	}
	scripts(t, ctx, true)
	keepFull(t, ctx, "import-example-1280")
}

// scripts turns the page's scripts on or off in the tab.
func scripts(t *testing.T, ctx context.Context, on bool) {
	t.Helper()
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: !on}); err != nil {
		t.Fatalf("turn scripts on=%v: %v", on, err)
	}
}

// auditHere runs axe-core on the page the tab shows, when it is at hand
// (FENCELAB_AXE, as .ci/run sets it), and fails on any serious or
// critical violation of WCAG 2.1 A or AA.
func auditHere(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	b, err := os.ReadFile(os.Getenv("FENCELAB_AXE"))
	if err != nil {
		if os.Getenv("FENCELAB_BROWSER_TESTS") == "required" {
			t.Fatalf("axe-core is required: set FENCELAB_AXE to axe.min.js")
		}
		t.Logf("no axe-core (FENCELAB_AXE): %s not audited", what)
		return
	}
	if !eval[bool](t, ctx, `typeof axe !== "undefined"`) {
		eval[chromedp.Void](t, ctx, string(b)+";undefined")
	}
	found, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe on %s: %v", what, err)
	}
	for _, v := range found {
		t.Errorf("axe on %s: %s", what, v)
	}
}

// TestSavedImportBrowser opens a saved import's page, its presentation
// and its embed: each draws the replay with the logs' column, the page
// and the embed pass axe-core, and the screenshots are kept.
func TestSavedImportBrowser(t *testing.T) {
	ctx := newBrowser(t)
	base := startServer(t)
	_, body := exampleImport(t, 0)
	res, err := http.Post(base+"/api/imports", "application/json", strings.NewReader(marshal(t, body)))
	if err != nil {
		t.Fatalf("POST /api/imports: %v", err)
	}
	var saved struct{ ID string }
	err = json.NewDecoder(res.Body).Decode(&saved)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/imports = %d (%v)", res.StatusCode, err)
	}
	for _, p := range []struct{ name, path, ready string }{
		{"import-run", paths.RunPath(saved.ID), ".diagram-panel .diagram"},
		{"import-present", paths.PresentPathOf(paths.RunPath(saved.ID)), ".present-diagram .diagram"},
		{"import-embed", paths.RunEmbedPath(saved.ID), ".diagram"},
	} {
		run(t, ctx, "open "+p.name, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(base+p.path), chromedp.WaitVisible(chromedp.CSS(p.ready)))
		// The presentation shortens labels to fit its screen (present-fit.js).
		if got := eval[string](t, ctx, `[...document.querySelectorAll(".diagram .observed text")].map(g => g.textContent).join(" | ")`); !strings.HasPrefix("logs: applied | logs: applied (differs)", strings.TrimSuffix(got, "…")) || len(got) < len("logs: applied | logs: applied (") {
			t.Errorf("%s: the logs' column reads %q, want step 8 applied and step 11 applied, differing from fenced", p.name, got)
		}
		if p.name != "import-present" {
			auditHere(t, ctx, p.name)
		}
		keepFull(t, ctx, p.name+"-1280")
	}
	// The oEmbed frame fits the embed, with its line of what the logs say
	// and its wider diagram.
	for _, width := range fitWidths {
		checkFrameFits(t, ctx, base, embedCase{"saved import", paths.RunPath(saved.ID)}, width)
	}
}

// TestImportEnterImports: Enter in a field of the import page imports, as
// the Import button does, though the first step's buttons come first.
func TestImportEnterImports(t *testing.T) {
	ctx := newBrowser(t)
	base := startServer(t)
	b, err := os.ReadFile(filepath.Join("..", "docs", "import", "scheduler.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	run(t, ctx, "open the import page", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(base+paths.RouteImport),
		chromedp.SetValue(chromedp.ID("log0"), string(b)))
	// The live preview may show a result too: only a posted page says
	// how each file was read.
	run(t, ctx, "press Enter in the name", chromedp.SendKeys(chromedp.ID("name0"), "scheduler.jsonl\r"),
		chromedp.WaitVisible(chromedp.CSS(`label[for="log0"] .hint`)), chromedp.WaitVisible(chromedp.CSS(".import-result")))
	if got := eval[string](t, ctx, `document.querySelector(".import-result h2").textContent`); !strings.Contains(got, "scheduler.jsonl") {
		t.Errorf("after Enter the result is %q, want the import of scheduler.jsonl", got)
	}
}
