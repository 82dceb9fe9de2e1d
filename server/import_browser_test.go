package server_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"fencelab/views/paths"
)

// TestImportBrowser uploads the walkthrough's four logs on the import
// page, imports them with the suggested mapping, changes a message's kind
// and watches the live preview follow, then looks at the page at 1280 and
// 390 pixels: both screenshots are kept, and neither may scroll sideways.
func TestImportBrowser(t *testing.T) {
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
	run(t, ctx, "upload the logs", chromedp.SetUploadFiles(chromedp.ID("upload"), files))
	// Choosing the files has the page look at them and put what it saw
	// above the form's buttons; a click aimed before that lands elsewhere.
	waitFor(t, ctx, "the look at the logs",
		`!document.querySelector("#import-suggest[aria-busy]") && document.getElementById("import-suggest").textContent.includes("storage.csv")`)
	run(t, ctx, "import",
		chromedp.Click(chromedp.CSS(`.import-actions button[value="import"]`)),
		chromedp.WaitVisible(chromedp.CSS(".import-against")))
	if got := eval[string](t, ctx, `document.querySelector(".import-against li").textContent`); !strings.Contains(got, "behaved like unfenced") {
		t.Errorf("first verdict = %q, want unfenced agreeing", got)
	}
	checkNoSideScroll(t, ctx, 1280)
	keepFull(t, ctx, "import-1280")

	noReload(t, ctx)
	// Saying "write received" is no event leaves nothing observed: the
	// preview says so without reloading the page.
	run(t, ctx, "make the deliveries no event", chromedp.Evaluate[chromedp.Void](`(() => {
		const row = [...document.querySelectorAll("input[name=kv_value]")].find(i => i.value === "write received");
		const sel = row.closest("tr").querySelector("select");
		sel.value = ""; sel.dispatchEvent(new Event("change", {bubbles: true}));
	})()`))
	waitFor(t, ctx, "the preview", `document.querySelector(".import-against li").textContent.includes("nothing observed")`)
	checkNoReload(t, ctx, "the live preview")

	run(t, ctx, "look at a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Reload())
	waitFor(t, ctx, "the page at 390 px", `document.querySelector(".import-form") !== null`)
	checkNoSideScroll(t, ctx, 390)
	keepFull(t, ctx, "import-390")

	// Saved, the import shows expected beside observed.
	run(t, ctx, "save and share", chromedp.EmulateViewport(1280, 900),
		chromedp.Click(chromedp.CSS(`button[value="save"]`)),
		chromedp.WaitVisible(chromedp.ID("imported-h")))
	if n := eval[int](t, ctx, `document.querySelectorAll(".observed-table tr.observed-diverges, .observed-table tr.observed-agrees").length`); n == 0 {
		t.Errorf("the saved import shows no observed step")
	}
	keepFull(t, ctx, "import-saved-1280")
}

// checkNoSideScroll fails when the page is wider than the viewport.
func checkNoSideScroll(t *testing.T, ctx context.Context, width int) {
	t.Helper()
	if w := eval[int](t, ctx, `document.documentElement.scrollWidth`); w > width {
		t.Errorf("at %d px the page is %d px wide: it scrolls sideways", width, w)
	}
}

// keepFull keeps a screenshot of the whole page as name.png (quality
// 100: PNG rather than JPEG).
func keepFull(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(artefacts(t), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}
