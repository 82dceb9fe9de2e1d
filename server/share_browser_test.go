package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fencelab/views/paths"

	"github.com/chromedp/chromedp"
)

// saveRunAt saves a built-in on the running lab at base and returns its id.
func saveRunAt(t *testing.T, base, name string) string {
	t.Helper()
	res, err := http.Post(base+"/api/runs", "application/json", strings.NewReader(builtinSource(t, name)))
	if err != nil {
		t.Fatalf("POST /api/runs: %v", err)
	}
	defer res.Body.Close()
	var saved struct{ ID string }
	if err := json.NewDecoder(res.Body).Decode(&saved); err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/runs = %d (%v)", res.StatusCode, err)
	}
	return saved.ID
}

// TestEmbedInFrame frames the embed page of a saved run in a plain page
// of another origin, as a wiki would, and checks that it is drawn there:
// the violation's red and the verdict's green show inside the frame.
func TestEmbedInFrame(t *testing.T) {
	ctx := newBrowser(t)
	base := startServer(t)
	id := saveRunAt(t, base, "paused-worker")
	wiki := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>Postmortem</title></head><body>
<h1>Postmortem: the duplicate result</h1><p>The run we discussed:</p>
<iframe id="run" src="%s/r/%s/embed?d=unfenced" width="900" height="1000" onload="this.dataset.loaded = 1"></iframe>
</body></html>`, base, id)
	}))
	t.Cleanup(wiki.Close)
	run(t, ctx, "open the wiki page", chromedp.EmulateViewport(1000, 1150), chromedp.Navigate(wiki.URL))
	waitFor(t, ctx, "the frame's load", `document.getElementById("run").dataset.loaded === "1"`)
	// The frame's load event can come before its first paint on a busy
	// machine: take the picture again until the diagram shows, for a while.
	colours := map[string][3]uint8{"the violation strip #b3141f": {0xb3, 0x14, 0x1f}, "the diagram's accepted #17703f": {0x17, 0x70, 0x3f}}
	var shot []byte
	var img image.Image
	for try := 0; ; try++ {
		var err error
		if shot, err = chromedp.Run(ctx, chromedp.Screenshot(chromedp.ID("run"))); err != nil {
			t.Fatalf("screenshot the frame: %v", err)
		}
		if img, err = png.Decode(bytes.NewReader(shot)); err != nil {
			t.Fatalf("decode the screenshot: %v", err)
		}
		if (hasPixel(img, colours["the violation strip #b3141f"]) && hasPixel(img, colours["the diagram's accepted #17703f"])) || try == 20 {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	path := filepath.Join(artefacts(t), "embed-in-frame.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
	checkEmbedHeight(t, ctx, base, id)
	for name, rgb := range colours {
		if !hasPixel(img, rgb) {
			t.Errorf("the framed embed shows no pixel of %s: it was not drawn (see %s)", name, path)
		}
	}
}

// checkEmbedHeight opens the embed page itself 900 pixels wide and checks
// that the height the oEmbed answer gives its frame is near the page's.
func checkEmbedHeight(t *testing.T, ctx context.Context, base, id string) {
	t.Helper()
	res, err := http.Get(base + "/oembed?maxwidth=900&url=" + url.QueryEscape(base+paths.RunPath(id)))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var answer struct{ Height int }
	if err := json.NewDecoder(res.Body).Decode(&answer); err != nil {
		t.Fatalf("decode the oEmbed answer: %v", err)
	}
	run(t, ctx, "open the embed page", chromedp.EmulateViewport(900, 600), chromedp.Navigate(base+paths.RunEmbedPath(id)),
		chromedp.WaitVisible(chromedp.CSS("table.steps")))
	page := eval[int](t, ctx, `document.documentElement.scrollHeight`)
	if d := answer.Height - page; d < -page/5 || d > page/5 {
		t.Errorf("oEmbed height %d for a page %d pixels tall at 900 wide, want within 20%%", answer.Height, page)
	}
	t.Logf("embed page height %d, oEmbed says %d", page, answer.Height)
}

func hasPixel(img image.Image, rgb [3]uint8) bool {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if d := absDiff(uint8(r>>8), rgb[0]) + absDiff(uint8(g>>8), rgb[1]) + absDiff(uint8(bl>>8), rgb[2]); d <= 6 {
				return true
			}
		}
	}
	return false
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// TestCopyAsMarkdown clicks "Copy as Markdown" on a run page and reads
// what reached the clipboard (a stand-in that keeps it): the export, with
// its plain "<".
func TestCopyAsMarkdown(t *testing.T) {
	ctx := newBrowser(t)
	base := startServer(t)
	id := saveRunAt(t, base, "paused-worker")
	run(t, ctx, "open the run", chromedp.Navigate(base+paths.RunPath(id)), chromedp.WaitVisible(chromedp.CSS("button[data-copy-markdown]")))
	eval[bool](t, ctx, `(function () {
		const keep = (text) => { window.copied = text; return Promise.resolve(); };
		Object.defineProperty(navigator, "clipboard", { configurable: true, value: {
			writeText: keep,
			write: (items) => items[0].getType("text/plain").then((b) => b.text()).then(keep),
		} });
		return true;
	})()`)
	run(t, ctx, "copy", chromedp.Click(chromedp.CSS("button[data-copy-markdown]")))
	waitFor(t, ctx, "the status", `document.querySelector(".copy-status").textContent.startsWith("Markdown copied")`)
	screenshot(t, ctx, "copy-as-markdown")
	got := eval[string](t, ctx, `window.copied`)
	res, err := http.Get(base + paths.RunMarkdownPath(id))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var want bytes.Buffer
	want.ReadFrom(res.Body)
	if got != want.String() || !strings.Contains(got, "`41 < 42`") {
		t.Errorf("copied %q, want the Markdown export %q", got, want.String())
	}
}

// TestCopyFallback takes the Clipboard API away and copies the run's link,
// a step's link and the Markdown through the one fallback (a field's text
// selected, the old copy command), reading what each selected when the
// command ran.
func TestCopyFallback(t *testing.T) {
	ctx := newBrowser(t)
	base := startServer(t)
	id := saveRunAt(t, base, "paused-worker")
	run(t, ctx, "open the run", chromedp.Navigate(base+paths.RunPath(id)), chromedp.WaitVisible(chromedp.CSS("button[data-copy]")))
	eval[bool](t, ctx, `(function () {
		Object.defineProperty(navigator, "clipboard", { configurable: true, value: undefined });
		const keep = function () { window.selected = this.value; };
		HTMLInputElement.prototype.select = keep;
		HTMLTextAreaElement.prototype.select = keep;
		document.execCommand = (cmd) => { window.copied = cmd === "copy" ? window.selected : ""; return true; };
		return true;
	})()`)
	link := eval[string](t, ctx, `document.getElementById("run-link").value`)

	run(t, ctx, "copy the link", chromedp.Click(chromedp.CSS("button[data-copy]")))
	waitFor(t, ctx, "the link's status", `document.querySelector(".copy-status").textContent === "Link copied."`)
	if got := eval[string](t, ctx, `window.copied`); got != link {
		t.Errorf("the link button copied %q, want %q", got, link)
	}

	run(t, ctx, "copy a step's link", chromedp.Click(chromedp.CSS("tr#step-2 .copy-step")))
	waitFor(t, ctx, "the step button", `document.querySelector("tr#step-2 .copy-step").textContent === "Copied"`)
	if got, want := eval[string](t, ctx, `window.copied`), strings.Split(link, "#")[0]+"#step-2"; got != want {
		t.Errorf("the step button copied %q, want %q", got, want)
	}

	run(t, ctx, "copy the Markdown", chromedp.Click(chromedp.CSS("button[data-copy-markdown]")))
	waitFor(t, ctx, "the Markdown status",
		`document.querySelector("button[data-copy-markdown]").closest(".share").querySelector(".copy-status")`+
			`.textContent.startsWith("Markdown copied")`)
	got := eval[string](t, ctx, `window.copied`)
	if !strings.Contains(got, "`41 < 42`") || !strings.HasPrefix(got, "#") {
		t.Errorf("the Markdown button copied %q, want the export", got)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("textarea.visually-hidden").length`); n != 0 {
		t.Errorf("%d hidden text areas left behind, want 0", n)
	}
}
