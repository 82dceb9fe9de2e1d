package server_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// openEditor loads the editor and waits until its script has wired it.
func openEditor(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	run(t, ctx, "open "+url, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.ID("timeline")))
	waitFor(t, ctx, "the editor's script", `document.documentElement.classList.contains("js") && !!window.Sortable`)
}

// finalValue is what the verdict of policy says result ends as.
func finalValue(t *testing.T, ctx context.Context, policy string) string {
	t.Helper()
	return eval[string](t, ctx, finalValueJS(policy))
}

func finalValueJS(policy string) string {
	return `(function () {
		for (const a of document.querySelectorAll("#result-body article.verdict")) {
			if (a.querySelector("h3").textContent.trim() === ` + jsString(policy) + `) {
				const v = a.querySelector(".values.final dd .val, .values.final dd .empty");
				return v ? v.textContent.trim() : "";
			}
		}
		return "";
	})()`
}

// updates counts the replays the page has shown since it loaded.
func updates(t *testing.T, ctx context.Context) int {
	t.Helper()
	return eval[int](t, ctx, `Number(document.getElementById("result-body").dataset.updates || 0)`)
}

// waitForUpdate waits for a replay after the count before, then for cond.
func waitForUpdate(t *testing.T, ctx context.Context, before int, what, cond string) {
	t.Helper()
	waitFor(t, ctx, what, `Number(document.getElementById("result-body").dataset.updates || 0) > `+
		strconv.Itoa(before)+` && (`+cond+`)`)
}

// cardValue is the value field of card n.
func cardValue(t *testing.T, ctx context.Context, n int) string {
	t.Helper()
	return eval[string](t, ctx, `(document.querySelector('#ev-`+strconv.Itoa(n)+` [name="ev.`+strconv.Itoa(n)+`.value"]') || {value: ""}).value`)
}

// point is a spot on the page, in CSS pixels of the viewport.
type point struct{ X, Y float64 }

// at returns the spot frac of the way down element id, at its centre.
func at(t *testing.T, ctx context.Context, id string, frac float64) point {
	t.Helper()
	return eval[point](t, ctx, `(function () {
		const r = document.getElementById(`+jsString(id)+`).getBoundingClientRect();
		return {X: r.left + r.width / 2, Y: r.top + r.height * `+strconv.FormatFloat(frac, 'f', 2, 64)+`};
	})()`)
}

// TestEditorDrag teaches old-token-first's lesson with real mouse events,
// without a reload: as written, A's late write (token 41) reaches the
// resource before B has written, so fenced accepts it. Dragging B's write
// above A's resume lets the resource see 42 first: fenced now rejects A's
// write, and unfenced ends with A's old-result over B's new-result.
func TestEditorDrag(t *testing.T) {
	base := startServer(t)
	ctx := newBrowser(t)
	openEditor(t, ctx, base+"/lab?from=old-token-first")
	if got := decisionAt(t, ctx, 6, "fenced"); got != "accepted" {
		t.Fatalf("before the drag, fenced decides A's write (step 6) %q, want accepted", got)
	}
	if got := finalValue(t, ctx, "unfenced"); got != "new-result" {
		t.Fatalf("before the drag, unfenced ends as %q, want new-result", got)
	}
	if got := verdictLine(t, ctx, "fenced"); !strings.Contains(got, "lets a deposed worker's write in") {
		t.Errorf("before the drag, fenced's verdict = %q, want it to say it lets a deposed worker's write in", got)
	}
	noReload(t, ctx)
	eval[chromedp.Void](t, ctx, `document.getElementById("ev-6").scrollIntoView({block: "center"})`)
	from, to := at(t, ctx, "ev-7-handle", .5), at(t, ctx, "ev-5", .25)
	before := updates(t, ctx)
	start := time.Now()
	run(t, ctx, "drag B's write above A's resume", chromedp.DragAndDropXY(from.X, from.Y, to.X, to.Y, 20))
	dropped := time.Now()
	waitForUpdate(t, ctx, before, "unfenced to end on old-result", finalValueJS("unfenced")+` === "old-result"`)
	seen := time.Since(dropped)
	ms := eval[int](t, ctx, `Number(document.getElementById("result-body").dataset.ms)`)
	t.Logf("drop → updated table: %d ms in the page (from the drop to the new table in place); %v seen by the test (polling every 5 ms) after a drag of %v",
		ms, seen.Round(time.Millisecond), dropped.Sub(start).Round(time.Millisecond))
	if got := cardValue(t, ctx, 5); got != "new-result" {
		t.Errorf("after the drag, card 5's value = %q, want new-result (B's write)", got)
	}
	if got := decisionAt(t, ctx, 7, "fenced"); got != "rejected" {
		t.Errorf("after the drag, fenced decides A's write (step 7) %q, want rejected", got)
	}
	if got := finalValue(t, ctx, "fenced"); got != "new-result" {
		t.Errorf("after the drag, fenced ends as %q, want new-result", got)
	}
	if got := verdictLine(t, ctx, "unfenced"); !strings.Contains(got, "corrupts data") {
		t.Errorf("after the drag, unfenced's verdict = %q, want it to say it corrupts data", got)
	}
	if got := verdictLine(t, ctx, "fenced"); !strings.Contains(got, "No invariant violated") {
		t.Errorf("after the drag, fenced's verdict = %q, want no invariant violated", got)
	}
	checkNoReload(t, ctx, "dragging")
	screenshot(t, ctx, "editor-after-drag")
}

// verdictLine is the line of policy's verdict that sums it up.
func verdictLine(t *testing.T, ctx context.Context, policy string) string {
	t.Helper()
	return eval[string](t, ctx, `(function () {
		for (const a of document.querySelectorAll("#result-body article.verdict")) {
			if (a.querySelector("h3").textContent.trim() === `+jsString(policy)+`) {
				return a.querySelector(".verdict-line").textContent.replace(/\s+/g, " ").trim();
			}
		}
		return "";
	})()`)
}

// decisionAt is the decision word policy shows at step n of the table.
func decisionAt(t *testing.T, ctx context.Context, n int, policy string) string {
	t.Helper()
	return eval[string](t, ctx, `(function () {
		const b = document.querySelector('#step-`+strconv.Itoa(n)+` td[data-label=`+jsString(policy)+`] .badge');
		return b ? b.textContent.replace(/[^a-z]/g, "") : "";
	})()`)
}

// TestEditorKeyboard moves A's write up twice with Alt+Up, announced.
func TestEditorKeyboard(t *testing.T) {
	base := startServer(t)
	ctx := newBrowser(t)
	openEditor(t, ctx, base+"/lab?from=paused-worker")
	noReload(t, ctx)
	before := updates(t, ctx)
	alt := chromedp.KeyModifiers(chromedp.ModifierAlt)
	run(t, ctx, "Alt+Up twice on A's write",
		chromedp.Focus(chromedp.ID("ev-8-handle")),
		chromedp.KeyEvent(kb.ArrowUp, alt),
		chromedp.KeyEvent(kb.ArrowUp, alt),
	)
	waitForUpdate(t, ctx, before, "unfenced to end on new-result", finalValueJS("unfenced")+` === "new-result"`)
	if got := eval[string](t, ctx, `document.activeElement.id`); got != "ev-6-handle" {
		t.Errorf("after two moves, focus is on %q, want ev-6-handle (the moved card's handle)", got)
	}
	waitFor(t, ctx, "the announcement", `document.getElementById("ev-announce").textContent.includes("position 6 of 8")`)
	if got := eval[string](t, ctx, `document.getElementById("ev-announce").textContent`); got != "A write moved to position 6 of 8." {
		t.Errorf("announcement = %q, want %q", got, "A write moved to position 6 of 8.")
	}
	if got := cardValue(t, ctx, 6); got != "old-result" {
		t.Errorf("card 6's value = %q, want old-result", got)
	}
	checkNoReload(t, ctx, "moving by keyboard")
	screenshot(t, ctx, "editor-keyboard")
}

// TestEditorPalette starts blank and adds events from the palette: each
// gets its card and its row.
func TestEditorPalette(t *testing.T) {
	base := startServer(t)
	ctx := newBrowser(t)
	openEditor(t, ctx, base+"/lab")
	screenshot(t, ctx, "editor-blank")
	if n := eval[int](t, ctx, `document.querySelectorAll("#timeline .ev-card").length`); n != 0 {
		t.Fatalf("the blank editor has %d cards, want 0", n)
	}
	noReload(t, ctx)
	run(t, ctx, "add A's acquire", chromedp.Click(chromedp.ID("add-event")))
	waitFor(t, ctx, "row 1", `!!document.getElementById("step-1") && !!document.getElementById("ev-1")`)
	run(t, ctx, "choose B's write",
		chromedp.Click(chromedp.CSS(`.kind-chip[data-kind="write"] label`)),
		chromedp.SetValue(chromedp.ID("add-actor"), "B"),
	)
	if hidden := eval[bool](t, ctx, `document.getElementById("add-request").closest("[data-kinds]").hidden`); !hidden {
		t.Errorf("with kind write, the palette shows the request field, which write does not take")
	}
	run(t, ctx, "type the value and add", chromedp.SendKeys(chromedp.ID("add-value"), "new-result"), chromedp.Click(chromedp.ID("add-event")))
	waitFor(t, ctx, "row 2", `!!document.getElementById("step-2")`)
	row := eval[string](t, ctx, `document.getElementById("step-2").textContent`)
	if !strings.Contains(row, "new-result") || !strings.Contains(row, "B") {
		t.Errorf("row 2 = %q, want B's write of new-result", row)
	}
	if got := eval[string](t, ctx, `document.activeElement.id`); got != "ev-2-actor" {
		t.Errorf("after adding, focus is on %q, want ev-2-actor (the new card)", got)
	}

	// Drag a kind from the palette between the two cards: A's pause at place 2.
	run(t, ctx, "choose A", chromedp.SetValue(chromedp.ID("add-actor"), "A"))
	eval[chromedp.Void](t, ctx, `document.getElementById("palette-h").scrollIntoView({block: "center"})`)
	from, to := at(t, ctx, `palette-pause`, .5), at(t, ctx, "ev-2", .25)
	if from.Y > 850 || to.Y < 0 {
		t.Fatalf("the palette's pause (y %.0f) and card 2 (y %.0f) are not both in view", from.Y, to.Y)
	}
	run(t, ctx, "drag pause into the timeline", chromedp.DragAndDropXY(from.X, from.Y, to.X, to.Y, 20))
	waitFor(t, ctx, "card 2 to be A's pause", `!!document.getElementById("ev-3") && document.getElementById("ev-2").dataset.kind === "pause"`)
	if got := eval[string](t, ctx, `document.getElementById("step-2").textContent`); !strings.Contains(got, "pause") {
		t.Errorf("after dropping pause at place 2, row 2 = %q", got)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#palette-kinds .kind-chip").length`); n != 14 {
		t.Errorf("after the drag the palette has %d kinds, want all 14 still", n)
	}
	checkNoReload(t, ctx, "adding from the palette")
	screenshot(t, ctx, "editor-palette")
}

// TestEditorSave saves a reordered draft and opens its link in a fresh
// browser context: the same table.
func TestEditorSave(t *testing.T) {
	base := startServer(t)
	ctx := newBrowser(t)
	openEditor(t, ctx, base+"/lab?from=paused-worker&p=fenced-strict&p=unfenced")
	before := updates(t, ctx)
	run(t, ctx, "move A's write up", chromedp.Click(chromedp.ID("ev-8-up")))
	waitForUpdate(t, ctx, before, "the replay", "true")
	want := eval[string](t, ctx, tableText("#result-body table.steps"))
	run(t, ctx, "save", chromedp.Click(chromedp.CSS("button[data-save]")))
	run(t, ctx, "wait for the saved run's page", chromedp.WaitVisible(chromedp.ID("run-link")))
	link := eval[string](t, ctx, `location.href`)
	if !strings.Contains(link, "p=fenced-strict") {
		t.Errorf("saved link %s lost the policies chosen", link)
	}

	fresh := newTab(t, ctx)
	run(t, fresh, "open the link", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS("table.steps")))
	got := eval[string](t, fresh, tableText("table.steps"))
	if got != want {
		t.Errorf("the saved run's table differs from the editor's:\nrun page:\n%s\neditor:\n%s", got, want)
	}
	screenshot(t, fresh, "editor-saved-run")
}

// tableText is the text of the table sel as a reader sees it; buttons
// that scripts add (copy a row's link) are left out.
func tableText(sel string) string {
	return `(function () {
		const t = document.querySelector(` + jsString(sel) + `).cloneNode(true);
		t.querySelectorAll("button").forEach(b => b.remove());
		return t.textContent.replace(/\s+/g, " ").trim();
	})()`
}

// TestEditorInvalidEdit names a send that does not exist in a deliver:
// the engine's error appears on that card and field, the text stays, and
// a reload keeps the draft.
func TestEditorInvalidEdit(t *testing.T) {
	base := startServer(t)
	ctx := newBrowser(t)
	openEditor(t, ctx, base+"/lab?from=delayed-request")
	id := eval[string](t, ctx, `document.querySelector('.ev-card[data-kind="deliver"]').id`)
	n := strings.TrimPrefix(id, "ev-")
	input := `document.querySelector('[name="ev.` + n + `.request"]')`
	before := updates(t, ctx)
	run(t, ctx, "type a request no send has",
		chromedp.Clear(chromedp.ID(id+"-request")),
		chromedp.SendKeys(chromedp.ID(id+"-request"), "nobody"),
	)
	waitForUpdate(t, ctx, before, "the error on the card",
		`!!document.querySelector("#`+id+` .ev-field-request .field-error")`)
	msg := eval[string](t, ctx, `document.querySelector("#`+id+` .ev-field-request .field-error").textContent`)
	if !strings.Contains(msg, `no send has the id "nobody"`) {
		t.Errorf("error on card %s = %q, want the engine's message", id, msg)
	}
	if got := eval[string](t, ctx, input+`.getAttribute("aria-invalid")`); got != "true" {
		t.Errorf("request field aria-invalid = %q, want true", got)
	}
	if got := eval[string](t, ctx, input+`.value`); got != "nobody" {
		t.Errorf("request field = %q after the error, want what was typed", got)
	}
	if !eval[bool](t, ctx, `document.getElementById("`+id+`").classList.contains("has-error")`) {
		t.Errorf("card %s is not marked as having an error", id)
	}
	run(t, ctx, "scroll to the card", chromedp.ScrollIntoView(chromedp.ID(id)))
	screenshot(t, ctx, "editor-error")

	run(t, ctx, "reload", chromedp.Reload())
	waitFor(t, ctx, "the draft restored", input+` && `+input+`.value === "nobody" && !document.getElementById("draft-note").hidden`)
	if !eval[bool](t, ctx, `!!document.querySelector("#`+id+` .field-error")`) {
		t.Errorf("after the reload, the restored draft shows no error on card %s", id)
	}
}

// TestEditorNarrow opens the editor on a 360-pixel phone: nothing is
// wider than the screen.
func TestEditorNarrow(t *testing.T) {
	base := startServer(t)
	ctx := newBrowser(t)
	run(t, ctx, "emulate a phone", chromedp.EmulateViewport(360, 780, chromedp.EmulateMobile, chromedp.EmulateTouch))
	openEditor(t, ctx, base+"/lab?from=paused-worker")
	if w := eval[int](t, ctx, `document.documentElement.scrollWidth`); w > 360 {
		t.Errorf("at 360 pixels the page is %d pixels wide", w)
	}
	screenshot(t, ctx, "editor-360")
}

// TestEditorExploreButton: with scripts on, "Explore every ordering"
// leaves the editor for the explorer on the draft as it stands.
func TestEditorExploreButton(t *testing.T) {
	base := startServer(t)
	ctx := newBrowser(t)
	openEditor(t, ctx, base+"/lab?from=old-token-first")
	run(t, ctx, "explore", chromedp.Click(chromedp.CSS("button[data-explore]")))
	run(t, ctx, "wait for the explorer", chromedp.WaitVisible(chromedp.ID("x-events-h")))
	text := eval[string](t, ctx, `document.body.textContent.replace(/\s+/g, " ")`)
	if !strings.Contains(text, "420 orderings") {
		t.Errorf("the explorer opened from the editor does not show the 420 orderings of old-token-first")
	}
	screenshot(t, ctx, "editor-explore")
}

// TestEditorDragStaleRead teaches stale-read-fresh-token's lesson with a
// drag, as the README's second walk-through does: as written, A computes
// its write from a read made before B's write landed, so cas rejects it
// (the read is stale) while fenced accepts it (43 is the newest token) and
// B's update is lost. Dragging A's read below B's write makes A read after
// B's write landed: its read is fresh, so cas accepts the write, and no
// policy loses an update.
func TestEditorDragStaleRead(t *testing.T) {
	base := startServer(t)
	ctx := newBrowser(t)
	openEditor(t, ctx, base+"/lab?from=stale-read-fresh-token&p=unfenced&p=fenced&p=cas")
	if got := decisionAt(t, ctx, 9, "cas"); got != "rejected" {
		t.Fatalf("before the drag, cas decides A's write (step 9) %q, want rejected", got)
	}
	if got := decisionAt(t, ctx, 9, "fenced"); got != "accepted" {
		t.Fatalf("before the drag, fenced decides A's write (step 9) %q, want accepted", got)
	}
	if got := finalValue(t, ctx, "cas"); got != "balance 7" {
		t.Errorf("before the drag, cas ends as %q, want balance 7", got)
	}
	if got := verdictLine(t, ctx, "fenced"); !strings.Contains(got, "corrupts data") {
		t.Errorf("before the drag, fenced's verdict = %q, want it to say it corrupts data (a lost update)", got)
	}
	noReload(t, ctx)
	eval[chromedp.Void](t, ctx, `document.getElementById("ev-4").scrollIntoView({block: "center"})`)
	from, to := at(t, ctx, "ev-2-handle", .5), at(t, ctx, "ev-6", .75)
	before := updates(t, ctx)
	run(t, ctx, "drag A's read below B's write", chromedp.DragAndDropXY(from.X, from.Y, to.X, to.Y, 20))
	waitForUpdate(t, ctx, before, "cas to end on balance 5", finalValueJS("cas")+` === "balance 5"`)
	kind := eval[string](t, ctx, `(document.querySelector('[name="ev.6.kind"]') || {value: ""}).value`)
	if kind != "read" {
		t.Errorf("after the drag, card 6 is a %q, want A's read", kind)
	}
	if got := decisionAt(t, ctx, 9, "cas"); got != "accepted" {
		t.Errorf("after the drag, cas decides A's write (step 9) %q, want accepted", got)
	}
	for _, p := range []string{"unfenced", "fenced", "cas"} {
		if got := verdictLine(t, ctx, p); !strings.Contains(got, "No invariant violated") {
			t.Errorf("after the drag, %s's verdict = %q, want no invariant violated", p, got)
		}
	}
	checkNoReload(t, ctx, "dragging")
	screenshot(t, ctx, "editor-stale-read-after-drag")
}
