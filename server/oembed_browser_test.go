package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"

	"fencelab/views/paths"

	"github.com/chromedp/chromedp"
)

// TestOEmbedFrameFits pastes the oEmbed answer's iframe, as a wiki does,
// into a page of another origin at 900, 700 and 500 pixels, and checks
// that the frame is as tall as the embed page it shows (no inner
// scrollbar, at most 2% to spare) and that the diagram fits its width, so
// that its result lane shows without scrolling its box.
func TestOEmbedFrameFits(t *testing.T) {
	ctx := newBrowser(t)
	base := startServer(t)
	id := saveRunAt(t, base, "paused-worker")
	wiki := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>Postmortem</title></head><body><h1>Postmortem</h1>%s</body></html>`, r.URL.Query().Get("frame"))
	}))
	t.Cleanup(wiki.Close)
	for _, width := range []int{900, 700, 500} {
		src, frame := oembedFrame(t, base, paths.RunPath(id), width)
		run(t, ctx, fmt.Sprintf("open the wiki page with a frame of %d", width), chromedp.EmulateViewport(int64(width)+40, 800),
			chromedp.Navigate(wiki.URL+"?"+url.Values{"frame": {frame.html}}.Encode()), chromedp.WaitReady(chromedp.CSS("iframe")))
		screenshot(t, ctx, fmt.Sprintf("oembed-frame-%d", width))
		run(t, ctx, "open the framed page alone", chromedp.EmulateViewport(int64(width), 200),
			chromedp.Navigate(src), chromedp.WaitReady(chromedp.CSS("table.steps")))
		content := eval[int](t, ctx, `document.documentElement.scrollHeight`)
		if frame.height < content || float64(frame.height) > 1.02*float64(content) {
			t.Errorf("oEmbed maxwidth=%d: height %d for a page %d pixels tall, want from %d to %d (no scrollbar, 2%% to spare)",
				width, frame.height, content, content, int(1.02*float64(content)))
		}
		if eval[bool](t, ctx, `(w => w.scrollWidth > w.clientWidth)(document.querySelector(".diagram-wrap"))`) {
			t.Errorf("embed at %d pixels: the diagram's box scrolls sideways; want the whole diagram, result lane included", width)
		}
		t.Logf("frame %d wide: oEmbed height %d, page %d", width, frame.height, content)
	}
}

// oembedAnswer is what the test reads of an oEmbed answer.
type oembedAnswer struct {
	html   string
	height int
}

// oembedFrame asks the lab at base for the oEmbed answer of the page at
// path, at most width wide, and returns the framed page's address and the answer.
func oembedFrame(t *testing.T, base, path string, width int) (string, oembedAnswer) {
	t.Helper()
	res, err := http.Get(base + "/oembed?maxwidth=" + strconv.Itoa(width) + "&url=" + url.QueryEscape(base+path))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var a struct {
		HTML   string
		Width  int
		Height int
	}
	if err := json.NewDecoder(res.Body).Decode(&a); err != nil || a.Width != width {
		t.Fatalf("GET /oembed?maxwidth=%d: width %d (%v), want %d", width, a.Width, err, width)
	}
	return base + paths.EmbedPathOf(path), oembedAnswer{html: a.HTML, height: a.Height}
}
