package server_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestGalleryFilter types into the gallery's filter: only the cards that
// hold the word stay, the count says how many, and clearing it brings
// every card back.
func TestGalleryFilter(t *testing.T) {
	base := startServer(t)
	ctx := newBrowser(t)
	run(t, ctx, "open the home page", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("gallery-q")))
	all := eval[int](t, ctx, `document.querySelectorAll("#gallery .card").length`)
	run(t, ctx, "type restart", chromedp.SendKeys(chromedp.ID("gallery-q"), "restart"))
	shown := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#gallery .card:not([hidden]) code")).map(c => c.textContent)`)
	if len(shown) == 0 || len(shown) >= all {
		t.Fatalf("filtering by restart shows %d of %d cards: %v", len(shown), all, shown)
	}
	for _, name := range shown {
		text := eval[string](t, ctx, `Array.from(document.querySelectorAll("#gallery .card")).find(c => c.querySelector("code").textContent === `+jsString(name)+`).textContent.toLowerCase()`)
		if !strings.Contains(text, "restart") {
			t.Errorf("the card of %s stays, without the word", name)
		}
	}
	if got := eval[string](t, ctx, `document.querySelector(".gallery-count").textContent`); got != strconv.Itoa(len(shown))+" of "+strconv.Itoa(all)+" scenarios match." {
		t.Errorf("the count reads %q, want %d of %d", got, len(shown), all)
	}
	screenshot(t, ctx, "gallery-filter")
	eval[chromedp.Void](t, ctx, `(el => { el.value = ""; el.dispatchEvent(new Event("input")); })(document.getElementById("gallery-q"))`)
	if n := eval[int](t, ctx, `document.querySelectorAll("#gallery .card:not([hidden])").length`); n != all {
		t.Errorf("after clearing the filter %d of %d cards show", n, all)
	}
}
