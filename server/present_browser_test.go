package server_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// openPresent loads a presentation at the given viewport size and waits
// until its script has taken over.
func openPresent(t *testing.T, ctx context.Context, url string, width, height int64) {
	t.Helper()
	run(t, ctx, "open "+url, chromedp.EmulateViewport(width, height), chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS(".present-table")))
	waitFor(t, ctx, "present.js", `document.querySelector(".present").classList.contains("present-js")`)
}

// presentState is what the audience sees: the highlighted row and band,
// the rows on screen and the step in the URL.
type presentState struct {
	Current string   // id of the highlighted row
	Band    string   // data-step of the highlighted band
	Shown   []string // ids of the rows on screen
	Hash    string
	Count   string // the step counter
}

const presentStateJS = `(function () {
	const rows = Array.from(document.querySelectorAll(".present-table tbody tr"));
	const cur = document.querySelectorAll(".present-table tr.is-current");
	const bands = document.querySelectorAll(".diagram .band.is-current");
	return {
		Current: cur.length === 1 ? cur[0].id : "(" + cur.length + " rows)",
		Band: bands.length === 1 ? bands[0].dataset.step : "(" + bands.length + " bands)",
		Shown: rows.filter(r => getComputedStyle(r).display !== "none" && r.getClientRects().length > 0).map(r => r.id),
		Hash: location.hash,
		Count: document.querySelector(".present-now").textContent,
	};
})()`

func checkPresentState(t *testing.T, ctx context.Context, what string, step int) {
	t.Helper()
	got := eval[presentState](t, ctx, presentStateJS)
	n := strconv.Itoa(step)
	var shown []string
	for i := 1; i <= step; i++ {
		shown = append(shown, "step-"+strconv.Itoa(i))
	}
	want := presentState{Current: "step-" + n, Band: n, Shown: shown, Hash: "#step-" + n, Count: n}
	if strings.Join(got.Shown, ",") != strings.Join(want.Shown, ",") || got.Current != want.Current ||
		got.Band != want.Band || got.Hash != want.Hash || got.Count != want.Count {
		t.Errorf("%s: %+v, want %+v", what, got, want)
	}
}

// TestPresentKeys steps through old-token-first with real key events:
// Right three times and Left once land on step 3, highlighted in the table
// and the diagram, with the later rows hidden and #step-3 in the URL.
// Stepping replaces the history entry, so Back leaves the presentation;
// an out-of-range step is corrected in the URL.
func TestPresentKeys(t *testing.T) {
	base := startServer(t)
	ctx := newBrowser(t)
	openPresent(t, ctx, base+"/scenarios/old-token-first/present", 1280, 800)
	checkPresentState(t, ctx, "on opening", 1)
	entries := eval[int](t, ctx, `history.length`)
	run(t, ctx, "press Right three times and Left once",
		chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight),
		chromedp.KeyEvent(kb.ArrowLeft))
	checkPresentState(t, ctx, "after Right, Right, Right, Left", 3)
	screenshot(t, ctx, "present-step-3")

	if got := eval[int](t, ctx, `history.length`); got != entries {
		t.Errorf("history.length after four steps = %d, want %d (each step replaces the entry)", got, entries)
	}

	run(t, ctx, "click Next twice", chromedp.Click(chromedp.CSS(".present-next")), chromedp.Click(chromedp.CSS(".present-next")))
	checkPresentState(t, ctx, "after the Next button", 5)
	eval[chromedp.Void](t, ctx, `location.hash = "#step-99"`)
	waitFor(t, ctx, "#step-99 corrected to the last step",
		`location.hash === "#step-" + document.querySelectorAll(".present-table tbody tr").length`)
	screenshot(t, ctx, "present-step-5-1280x800")
	openPresent(t, ctx, base+"/scenarios/old-token-first/present#step-5", 1920, 1080)
	checkPresentState(t, ctx, "opening #step-5", 5)
	openPresent(t, ctx, base+"/scenarios/old-token-first/present#step-0", 1920, 1080)
	checkPresentState(t, ctx, "opening #step-0", 1)
	screenshot(t, ctx, "present-step-5-1920x1080")
}

// TestPresentPredict guesses A's write in old-token-first under fenced:
// "accepted" is right, and the score says so.
func TestPresentPredict(t *testing.T) {
	base := startServer(t)
	ctx := newBrowser(t)
	openPresent(t, ctx, base+"/scenarios/old-token-first/present?predict=1#step-5", 1280, 800)
	run(t, ctx, "press Right to A's write", chromedp.KeyEvent(kb.ArrowRight))
	waitFor(t, ctx, "the question", `document.querySelector("#step-6.is-asking") !== null && !document.querySelector(".predict").hidden`)
	question := eval[string](t, ctx, `document.querySelector(".predict-question").textContent`)
	if !strings.Contains(question, "Under fenced") || !strings.Contains(question, "old-result") {
		t.Errorf("predict question = %q, want one about A's write of old-result under fenced", question)
	}
	if eval[bool](t, ctx, `Array.from(document.querySelectorAll("#step-6 .outcome")).some(e => e.getClientRects().length > 0)`) {
		t.Errorf("row 6's outcomes show before the guess")
	}
	screenshot(t, ctx, "present-predict-question")

	run(t, ctx, "choose accepted", chromedp.Click(chromedp.CSS(`.predict [data-guess="accepted"]`)))
	waitFor(t, ctx, "the verdict", `document.querySelector(".predict-result").textContent !== ""`)
	result := eval[string](t, ctx, `document.querySelector(".predict-result").textContent`)
	if want := "✓ Right. Accepted, because 41 is the first token “result” sees."; result != want {
		t.Errorf("after choosing accepted, the verdict = %q, want %q", result, want)
	}
	score := eval[string](t, ctx, `document.querySelector(".predict-score").textContent.replace(/\s+/g, " ").trim()`)
	if score != "Score: 1 of 1" {
		t.Errorf("score = %q, want %q", score, "Score: 1 of 1")
	}
	if !eval[bool](t, ctx, `getComputedStyle(document.querySelector("#step-6 .outcome")).display !== "none"`) {
		t.Errorf("row 6's outcomes stay hidden after the guess")
	}
	screenshot(t, ctx, "present-predict-right")
}
