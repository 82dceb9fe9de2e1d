package server_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestLostUpdateWithCAS loads a lost-update lesson with cas chosen, as a
// reader at 1280 px sees it: cas has its column and its verdict, fenced's
// step 9 violates lost-update with its class, the diagram says the write
// was stale in words, and "What the violations mean" explains lost-update
// and cas.
func TestLostUpdateWithCAS(t *testing.T) {
	ctx := newBrowser(t)
	url := startServer(t) + "/scenarios/stale-read-fresh-token?p=fenced&p=cas"
	run(t, ctx, "open "+url, chromedp.EmulateViewport(1280, 2400), chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS("#step-9")), chromedp.Click(chromedp.CSS(".glossary summary")))
	got := eval[map[string]string](t, ctx, `(function () {
		const text = s => Array.from(document.querySelectorAll(s)).map(e => e.textContent.replace(/\s+/g, " ").trim()).join(" | ");
		return {
			columns: text(".steps thead .col-policy"),
			step9: text("#step-9 .col-policy"),
			verdicts: text(".verdict h3"),
			diagram: text("#diagram svg .stale"),
			glossary: getComputedStyle(document.querySelector(".glossary-cas")).display !== "none" ? text(".glossary-cas") : "(hidden)",
		};
	})()`)
	for _, c := range []struct{ field, want string }{
		{"columns", "fenced | cas"},
		{"step9", "violates lost-update corrupting"},
		{"step9", "stale: read v0, now v1"},
		{"verdicts", "fenced | cas"},
		{"diagram", "stale: read v0,now v1"},
		{"glossary", "lost-update is corrupting"},
		{"glossary", "The policy cas makes such a read-modify-write conditional"},
	} {
		if !strings.Contains(got[c.field], c.want) {
			t.Errorf("stale-read-fresh-token with cas: %s = %q, want it to contain %q", c.field, got[c.field], c.want)
		}
	}
	screenshot(t, ctx, "lost-update-cas")
}
