package server_test

import (
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestEditorUndo deletes cards with ✕ and takes each delete back with
// Ctrl+Z and the Undo button, redoes with Ctrl+Shift+Z, and finds the
// history still there after a reload. More than 50 steps are kept.
func TestEditorUndo(t *testing.T) {
	base := startServer(t)
	ctx := newBrowser(t)
	openEditor(t, ctx, base+"/lab?from=paused-worker")
	count := func() int { return eval[int](t, ctx, `document.querySelectorAll("#timeline > .ev-card").length`) }
	waitCards := func(what string, n int) {
		t.Helper()
		waitFor(t, ctx, what, `document.querySelectorAll("#timeline > .ev-card").length === `+strconv.Itoa(n)+` && !document.getElementById("editor").hasAttribute("aria-busy")`)
	}
	if n := count(); n != 8 {
		t.Fatalf("paused-worker opens with %d cards, want 8", n)
	}
	for want := 7; want >= 6; want-- {
		run(t, ctx, "delete the last card", chromedp.Click(chromedp.CSS(`#timeline > .ev-card:last-child button[value^="del"]`)))
		waitCards("a card deleted", want)
	}
	run(t, ctx, "Ctrl+Z", chromedp.KeyEvent("z", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	waitCards("the second delete undone", 7)
	run(t, ctx, "the Undo button", chromedp.Click(chromedp.ID("undo")))
	waitCards("the first delete undone", 8)
	if !eval[bool](t, ctx, `document.getElementById("undo").disabled`) {
		t.Error("Undo is still enabled at the page as it opened")
	}
	run(t, ctx, "Ctrl+Shift+Z", chromedp.KeyEvent("Z", chromedp.KeyModifiers(chromedp.ModifierCtrl, chromedp.ModifierShift)))
	waitCards("the first delete redone", 7)
	run(t, ctx, "reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("timeline")))
	waitCards("the draft restored", 7)
	run(t, ctx, "Ctrl+Z after the reload", chromedp.Click(chromedp.ID("timeline-h")), chromedp.KeyEvent("z", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	waitCards("undone after the reload", 8)

	// Fifty-five moves, each a step of its own; fifty-five undos go back.
	for i := 0; i < 55; i++ {
		before := updates(t, ctx)
		run(t, ctx, "move card 1 down", chromedp.Focus(chromedp.ID("ev-1-handle")), chromedp.KeyEvent(kb.ArrowDown))
		waitForUpdate(t, ctx, before, "the move replayed", "true")
	}
	first := eval[string](t, ctx, `document.querySelector("#timeline > .ev-card").dataset.kind`)
	if first == "acquire" {
		t.Fatalf("after 55 moves card 1 is still acquire: the moves did not happen")
	}
	for i := 0; i < 55; i++ {
		run(t, ctx, "undo", chromedp.Click(chromedp.ID("undo")))
		waitFor(t, ctx, "the undo redrawn", `!document.getElementById("editor").hasAttribute("aria-busy")`)
	}
	if got := eval[string](t, ctx, `Array.from(document.querySelectorAll("#timeline > .ev-card")).map(c => c.dataset.kind).join(" ")`); got != "acquire read pause expire acquire write resume write" {
		t.Errorf("after 55 undos the timeline is %q, want paused-worker as it opened", got)
	}
}

// TestEditorKeepsTheLastGoodTable: while a card has a mistake, the table
// that last replayed stays in view, dimmed, and goes when it is fixed.
func TestEditorKeepsTheLastGoodTable(t *testing.T) {
	base := startServer(t)
	ctx := newBrowser(t)
	openEditor(t, ctx, base+"/lab?from=delayed-request")
	id := eval[string](t, ctx, `document.querySelector('.ev-card[data-kind="deliver"]').id`)
	before := updates(t, ctx)
	run(t, ctx, "type a request no send has", chromedp.Clear(chromedp.ID(id+"-request")), chromedp.SendKeys(chromedp.ID(id+"-request"), "nobody"))
	waitForUpdate(t, ctx, before, "the error", `!!document.querySelector("#result-body .editor-errors")`)
	if !eval[bool](t, ctx, `!!document.querySelector("#result-body .last-good [inert] table.steps")`) {
		t.Error("with an error on a card, the last good table is gone")
	}
	if op := eval[string](t, ctx, `getComputedStyle(document.querySelector("#result-body .last-good [inert]")).opacity`); op == "1" {
		t.Error("the last good table is not dimmed")
	}
	screenshot(t, ctx, "editor-last-good")
	before = updates(t, ctx)
	// (Clear leaves a field that an error marked as it was: the value is set as typing would.)
	eval[chromedp.Void](t, ctx, `(el => { el.value = "a1"; el.dispatchEvent(new Event("input", {bubbles: true})); })(document.getElementById("`+id+`-request"))`)
	waitForUpdate(t, ctx, before, "the fix replayed", `!document.querySelector("#result-body .editor-errors")`)
	if eval[bool](t, ctx, `!!document.querySelector("#result-body .last-good")`) {
		t.Error("after the fix, the dimmed table is still there")
	}
}
