package server_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"fencelab/server"
	"fencelab/views/paths"
)

// openPresent loads a presentation at the given viewport size and waits
// until its script has taken over.
func openPresent(t *testing.T, ctx context.Context, url string, width, height int64) {
	t.Helper()
	// about:blank first: a URL that differs from the page shown only in
	// its #step is no new load, just a hashchange the script handles a
	// moment later, and the checks would read the page before it did.
	run(t, ctx, "open "+url, chromedp.EmulateViewport(width, height), chromedp.Navigate("about:blank"),
		chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(".present-table")))
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
	// On a projector the earlier cards fold away (the diagram shows those
	// steps), so that no column needs scrolling: only the current card shows.
	want := presentState{Current: "step-" + n, Band: n, Shown: []string{"step-" + n}, Hash: "#step-" + n, Count: n}
	if strings.Join(got.Shown, ",") != strings.Join(want.Shown, ",") || got.Current != want.Current ||
		got.Band != want.Band || got.Hash != want.Hash || got.Count != want.Count {
		t.Errorf("%s: %+v, want %+v", what, got, want)
	}
}

// TestPresentKeys steps through old-token-first with real key events:
// Right three times and Left once land on step 3, highlighted in the table
// and the diagram, with the other rows folded away and #step-3 in the URL.
// Stepping replaces the history entry, so Back leaves the presentation;
// an out-of-range step is corrected in the URL.
func TestPresentKeys(t *testing.T) {
	base := startServer(t)
	ctx := newBrowser(t)
	openPresent(t, ctx, base+"/scenarios/old-token-first/present", 1280, 800)
	// A link that names no step opens on the title slide; → leaves it for
	// step 1, and ← at step 1 comes back to it.
	checkOpening(t, ctx, "on opening", true)
	run(t, ctx, "press Right on the title slide", chromedp.KeyEvent(kb.ArrowRight))
	checkOpening(t, ctx, "after Right", false)
	checkPresentState(t, ctx, "after Right from the title slide", 1)
	run(t, ctx, "press Left at step 1", chromedp.KeyEvent(kb.ArrowLeft))
	checkOpening(t, ctx, "after Left at step 1", true)
	run(t, ctx, "click Start", chromedp.Click(chromedp.CSS(".opening-start")))
	checkOpening(t, ctx, "after Start", false)
	checkPresentState(t, ctx, "after Start", 1)
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

// checkOpening checks that the title slide is shown (with the title, the
// question and the actors) or not.
func checkOpening(t *testing.T, ctx context.Context, what string, shown bool) {
	t.Helper()
	got := eval[bool](t, ctx, `(o => !!o && !o.hidden && o.getBoundingClientRect().height > 100)(document.querySelector(".present-opening"))`)
	if got != shown {
		t.Fatalf("%s: the title slide shown = %v, want %v", what, got, shown)
	}
	if shown {
		text := eval[string](t, ctx, `document.querySelector(".present-opening").innerText`)
		for _, want := range []string{"The question:", "lease service", "\nA acquire", "\nB acquire"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: the title slide lacks %q: %q", what, want, text)
			}
		}
	}
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
	if want := "✓ Right. Accepted, because “result” remembers no token to compare 41 with."; result != want {
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

// presentFit is how step 8 of paused-worker sits on one screen.
type presentFit struct {
	ScrollW, ScrollH, W, H int
	RowBottom, BandBottom  float64 // of the current row and band, in the viewport
	SVGMin, HTMLMin        float64 // the smallest text on screen, in CSS px
	Dupes                  int     // outcome cells whose policy name shows twice
	CutOff                 []string
}

const presentFitJS = `(function () {
	const svg = document.querySelector("svg.diagram");
	const vb = svg.viewBox.baseVal, r = svg.getBoundingClientRect();
	const scale = Math.min(r.width / vb.width, r.height / vb.height);
	const shown = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden";
	const svgSizes = Array.from(svg.querySelectorAll("text")).filter(shown).map(t => parseFloat(getComputedStyle(t).fontSize) * scale);
	const html = Array.from(document.querySelectorAll(".present-bar *, .present-steps *"))
		.filter(e => shown(e) && Array.from(e.childNodes).some(n => n.nodeType === 3 && n.textContent.trim()))
		.map(e => parseFloat(getComputedStyle(e).fontSize));
	const cells = Array.from(document.querySelectorAll("#step-8 td.col-policy"));
	const dupes = cells.filter(td => td.innerText.split(td.dataset.label).length - 1 !== 1).length;
	const cut = Array.from(document.querySelectorAll(".present-bar button, .present-bar a, .present-bar summary"))
		.filter(e => shown(e) && (e.getBoundingClientRect().right > innerWidth + 0.5 || e.getBoundingClientRect().left < 0)).map(e => e.className);
	return {
		ScrollW: document.documentElement.scrollWidth, ScrollH: document.documentElement.scrollHeight, W: innerWidth, H: innerHeight,
		RowBottom: document.querySelector("#step-8").getBoundingClientRect().bottom,
		BandBottom: svg.querySelector('.band[data-step="8"] .hit').getBoundingClientRect().bottom,
		SVGMin: Math.min(...svgSizes), HTMLMin: Math.min(...html), Dupes: dupes, CutOff: cut,
	};
})()`

// TestPresentSizes shows step 8 of paused-worker on three projectors and
// a phone. On a projector the title, the diagram and the decisive row fit
// one screen without scrolling, and at 1024×768 no text is under 18 px;
// on the phone nothing is cut off, nothing scrolls sideways and no
// policy's name shows twice. On each projector it then measures predict
// mode before and after the guess, and a live room before the answers,
// while they arrive and at the reveal (checkLayout).
func TestPresentSizes(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped under -short")
	}
	base := startRoomServer(t, server.RoomConfig{})
	for _, size := range []struct {
		w, h  int64
		phone bool
		least float64
	}{{1024, 768, false, 18}, {1280, 720, false, 16}, {1920, 1080, false, 16}, {375, 812, true, 11}, {360, 740, true, 11}} {
		name := strconv.FormatInt(size.w, 10) + "x" + strconv.FormatInt(size.h, 10)
		t.Run(name, func(t *testing.T) {
			ctx := newBrowser(t) // one each: a browser test's steps have a minute
			if size.phone {
				run(t, ctx, "phone "+name, chromedp.EmulateViewport(size.w, size.h, chromedp.EmulateMobile, chromedp.EmulateTouch),
					chromedp.Navigate(base+"/scenarios/paused-worker/present#step-8"), chromedp.WaitVisible(chromedp.CSS(".present-table")))
				waitFor(t, ctx, "present.js", `document.querySelector(".present").classList.contains("present-js")`)
			} else {
				openPresent(t, ctx, base+"/scenarios/paused-worker/present#step-8", size.w, size.h)
			}
			checkStep8(t, ctx, name, size.phone, size.least)
			if !size.phone {
				checkLayout(t, ctx, name, "plain", size.least)
				checkPredictLayouts(t, ctx, base, name, size.w, size.h, size.least)
				checkRoomLayouts(t, ctx, base, name, size.w, size.h, size.least)
			}
		})
	}
}

// checkStep8 checks step 8 of paused-worker as first shown: on a
// projector one screen; on a phone nothing cut off and nothing but the
// diagram's own box scrolling sideways, its labels at least least px.
func checkStep8(t *testing.T, ctx context.Context, name string, phone bool, least float64) {
	t.Helper()
	// At 4:3 the earlier rows are folded away: only the current one counts here.
	if st := eval[presentState](t, ctx, presentStateJS); st.Current != "step-8" || st.Band != "8" || st.Hash != "#step-8" {
		t.Errorf("%s: %+v, want step 8 current in the table, the diagram and the URL", name, st)
	}
	if !phone { // the steps' column scrolls smoothly to the current row
		waitFor(t, ctx, "row 8 in view at "+name, `document.querySelector("#step-8").getBoundingClientRect().bottom <= innerHeight`)
	}
	got := eval[presentFit](t, ctx, presentFitJS)
	if got.ScrollW > got.W || got.Dupes != 0 || len(got.CutOff) > 0 {
		t.Errorf("%s: page %d px wide in %d, %d cells naming their policy twice, cut off: %v",
			name, got.ScrollW, got.W, got.Dupes, got.CutOff)
	}
	if phone {
		l := eval[layout](t, ctx, layoutJS)
		t.Logf("%s: diagram labels at least %.1f px, drawing %.0f px wide, %d overlaps", name, l.LabelMin, l.DiagramW, len(l.Overlaps))
		if l.LabelMin < least {
			t.Errorf("%s: smallest diagram label %.1f px, want at least %.0f", name, l.LabelMin, least)
		}
	} else {
		if got.ScrollH > got.H || got.RowBottom > float64(got.H) || got.BandBottom > float64(got.H) {
			t.Errorf("%s: page %d px high in %d; row 8 ends at %.0f, band 8 at %.0f: not one screen",
				name, got.ScrollH, got.H, got.RowBottom, got.BandBottom)
		}
		if got.SVGMin < least || got.HTMLMin < least {
			t.Errorf("%s: smallest label %.1f px in the diagram, %.1f px beside it; want at least %.0f",
				name, got.SVGMin, got.HTMLMin, least)
		}
	}
	t.Logf("%s: %+v", name, got)
	screenshot(t, ctx, "present-paused-worker-step-8-"+name)
}

// TestPresentWithoutJavaScript opens the presentation with scripts off on
// a 16:9 and a 4:3 projector and a phone: the diagram is drawn (every
// step is shown, as the notice says), however many cards follow it.
func TestPresentWithoutJavaScript(t *testing.T) {
	base := startServer(t)
	ctx := newBrowser(t)
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatalf("turn JavaScript off: %v", err)
	}
	for _, size := range [][2]int64{{1280, 720}, {1024, 768}, {390, 844}} {
		for _, name := range []string{"paused-worker", "split-brain"} {
			url := base + paths.PresentPathOf(paths.ScenarioPath(name))
			run(t, ctx, "open "+url, chromedp.EmulateViewport(size[0], size[1]), chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS(".present-noscript")))
			h := eval[float64](t, ctx, `document.querySelector(".present svg.diagram").getBoundingClientRect().height`)
			w := eval[float64](t, ctx, `document.querySelector(".present svg.diagram").getBoundingClientRect().width`)
			if h < 200 || w < 200 {
				t.Errorf("%s without JavaScript at %dx%d: the diagram is %.0fx%.0f pixels, want it drawn", name, size[0], size[1], w, h)
			}
		}
	}
}

// TestPresentAhead: at the first steps on a projector the covered part
// of the diagram says how many steps are to come, the question and who
// takes part, under the current band and inside the screen; once the
// steps fill the diagram (step 8) it is gone.
func TestPresentAhead(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped under -short")
	}
	base := startServer(t)
	ctx := newBrowser(t)
	type ahead struct {
		Shown       bool
		Text        string
		Top, Bottom float64
		BandBottom  float64
		H           float64
	}
	const aheadJS = `(function () {
		const a = document.querySelector(".present-ahead"), r = a.getBoundingClientRect();
		const band = document.querySelector(".band.is-current .hit").getBoundingClientRect();
		return {Shown: !a.hidden && r.height > 0, Text: a.innerText, Top: r.top, Bottom: r.bottom, BandBottom: band.bottom, H: innerHeight};
	})()`
	for _, size := range [][2]int64{{1280, 720}, {1024, 768}} {
		name := strconv.FormatInt(size[0], 10) + "x" + strconv.FormatInt(size[1], 10)
		openPresent(t, ctx, base+"/scenarios/paused-worker/present#step-3", size[0], size[1])
		waitFor(t, ctx, "the steps to come at "+name, `!document.querySelector(".present-ahead").hidden`)
		a := eval[ahead](t, ctx, aheadJS)
		if !strings.Contains(a.Text, "5 steps of 8 to come") || !strings.Contains(a.Text, "The question:") || a.Top < a.BandBottom || a.Bottom > a.H {
			t.Errorf("%s step 3: %+v, want the 5 steps to come and the question under band 3 (ending at %.0f) and on the screen", name, a, a.BandBottom)
		}
		openPresent(t, ctx, base+"/scenarios/paused-worker/present#step-8", size[0], size[1])
		if a := eval[ahead](t, ctx, aheadJS); a.Shown {
			t.Errorf("%s step 8: %+v, want nothing to come", name, a)
		}
	}
}
