package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"fencelab/views/paths"
)

// layout is what a screen of the presentation shows, measured in the
// browser: what must be in view and is not, boxes that scroll, the
// diagram's smallest label and labels that overlap, the bar's lines.
type layout struct {
	Missing   []string // of the title, the diagram, each policy's decision, the question panel
	Scrolls   []string // boxes whose content overflows them (a column that would need scrolling)
	LabelMin  float64  // the smallest text in the diagram, CSS px
	Overlaps  []string // pairs of diagram labels whose boxes intersect
	BarLines  int
	DiagramW  float64
	DiagramH  float64 // the drawing's size on screen
	ColumnH   float64 // the height of the diagram's column
	PageW     int
	PageH     int
	ViewportH int
}

const layoutJS = `(function () {
	const vw = innerWidth, vh = innerHeight;
	const shown = e => !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden";
	const inView = e => {
		if (!shown(e)) return false;
		const r = e.getBoundingClientRect();
		if (r.top < -0.5 || r.left < -0.5 || r.bottom > vh + 0.5 || r.right > vw + 0.5) return false;
		for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
			const s = getComputedStyle(a);
			if (s.overflowX === "visible" && s.overflowY === "visible") continue;
			const b = a.getBoundingClientRect();
			if (r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5 || r.left < b.left - 0.5 || r.right > b.right + 0.5) return false;
		}
		return true;
	};
	const missing = [];
	const need = (name, e) => { if (!inView(e)) missing.push(name); };
	need("title", document.querySelector(".present-title"));
	const svg = document.querySelector("svg.diagram");
	need("diagram", svg);
	const cur = document.querySelector(".present-table tr.is-current");
	cur.querySelectorAll("td.col-policy").forEach(td => need("decision under " + td.dataset.label, td));
	const panel = document.querySelector(".predict");
	if (panel && !panel.hidden) need("question panel", panel);
	const scrolls = Array.from(document.querySelectorAll(".present *")).filter(e => {
		const s = getComputedStyle(e);
		return shown(e) && !e.closest("details:not([open])") && /(auto|scroll)/.test(s.overflowY + s.overflowX) &&
			(e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1);
	}).map(e => e.tagName.toLowerCase() + "." + String(e.className.baseVal ?? e.className).split(" ")[0]);
	const vb = svg.viewBox.baseVal, sr = svg.getBoundingClientRect();
	const scale = Math.min(sr.width / vb.width, sr.height / vb.height);
	const texts = Array.from(svg.querySelectorAll("text")).filter(t => shown(t) && t.textContent.trim() && !t.closest("[visibility=hidden]"));
	const sizes = texts.map(t => parseFloat(getComputedStyle(t).fontSize) * scale);
	const boxes = texts.map(t => t.getBoundingClientRect());
	const overlaps = [];
	for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) {
		const a = boxes[i], b = boxes[j];
		const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
		if (w > 1 && h > 3) overlaps.push(texts[i].textContent.trim() + " × " + texts[j].textContent.trim());
	}
	// A label running into a decision's dot counts too.
	svg.querySelectorAll("circle").forEach(c => {
		const d = c.getBoundingClientRect();
		texts.forEach((t, i) => {
			const a = boxes[i];
			const w = Math.min(a.right, d.right) - Math.max(a.left, d.left), h = Math.min(a.bottom, d.bottom) - Math.max(a.top, d.top);
			if (w > 1 && h > 1) overlaps.push(t.textContent.trim() + " × a dot");
		});
	});
	const bar = Array.from(document.querySelector(".present-bar").children).filter(shown).map(e => e.getBoundingClientRect());
	const tops = [];
	bar.forEach(r => { if (!tops.some(t => Math.abs(t - r.top) < r.height / 2 + 4 && Math.abs(t - r.top) < 24)) tops.push(r.top); });
	return {
		Missing: missing, Scrolls: scrolls, LabelMin: Math.min(...sizes), Overlaps: overlaps, BarLines: tops.length,
		DiagramW: vb.width * scale, DiagramH: svg.classList.contains("is-stretched") ? sr.height : vb.height * scale, ColumnH: document.querySelector(".present-diagram").getBoundingClientRect().height,
		PageW: document.documentElement.scrollWidth, PageH: document.documentElement.scrollHeight, ViewportH: vh,
	};
})()`

// checkLayout measures the screen in state what, keeps its screenshot,
// and fails on anything out of view, a box that scrolls, a label under
// least px or two labels overlapping.
func checkLayout(t *testing.T, ctx context.Context, name, what string, least float64) layout {
	t.Helper()
	got := eval[layout](t, ctx, layoutJS)
	t.Logf("%s %s: label min %.1f px, %d overlaps, bar %d line(s), diagram %.0f×%.0f in a column %.0f high, missing %v, scrolls %v",
		name, what, got.LabelMin, len(got.Overlaps), got.BarLines, got.DiagramW, got.DiagramH, got.ColumnH, got.Missing, got.Scrolls)
	if len(got.Missing) > 0 || len(got.Scrolls) > 0 || got.PageH > got.ViewportH {
		t.Errorf("%s %s: not in view: %v; boxes that scroll: %v; page %d px high in %d", name, what, got.Missing, got.Scrolls, got.PageH, got.ViewportH)
	}
	if got.LabelMin < least || len(got.Overlaps) > 0 {
		t.Errorf("%s %s: smallest diagram label %.1f px (want ≥ %.0f); overlapping labels: %v", name, what, got.LabelMin, least, got.Overlaps)
	}
	screenshot(t, ctx, "present-"+what+"-"+name)
	return got
}

// checkPredictLayouts measures predict mode at step 8 of paused-worker,
// before and after the guess.
func checkPredictLayouts(t *testing.T, ctx context.Context, base, name string, w, h int64, least float64) {
	t.Helper()
	run(t, ctx, "a fresh page", chromedp.Navigate("about:blank"))
	openPresent(t, ctx, base+"/scenarios/paused-worker/present?predict=1#step-8", w, h)
	waitFor(t, ctx, "the question", `!document.querySelector(".predict").hidden && document.querySelector("#step-8.is-asking") !== null`)
	checkLayout(t, ctx, name, "predict-question", least)
	run(t, ctx, "guess rejected", chromedp.Click(chromedp.CSS(`.predict [data-guess="rejected"]`)))
	waitFor(t, ctx, "the verdict", `document.querySelector(".predict-result").textContent !== ""`)
	checkLayout(t, ctx, name, "predict-guessed", least)
}

// checkRoomLayouts starts a live room on paused-worker and measures step
// 8 before the answers, while they arrive and at the reveal; with a room
// the bar must stay on one line.
func checkRoomLayouts(t *testing.T, ctx context.Context, base, name string, w, h int64, least float64) {
	t.Helper()
	run(t, ctx, "a fresh page", chromedp.Navigate("about:blank"))
	openPresent(t, ctx, base+"/scenarios/paused-worker/present", w, h)
	run(t, ctx, "start a live room", chromedp.Click(chromedp.CSS(".present-menu > summary")),
		chromedp.Click(chromedp.CSS(".room-start button")), chromedp.WaitVisible(chromedp.CSS(".room-join-code")))
	screenshot(t, ctx, "present-room-join-"+name)
	code := strings.TrimSpace(eval[string](t, ctx, `document.querySelector(".room-join-code").textContent`))
	run(t, ctx, "fold the invitation", chromedp.Click(chromedp.CSS(".room-join-summary")), chromedp.KeyEvent(kb.End))
	waitFor(t, ctx, "the question", `!document.querySelector(".predict").hidden && !document.querySelector(".predict-waiting").hidden`)
	if got := checkLayout(t, ctx, name, "room-question", least); got.BarLines != 1 {
		t.Errorf("%s with a room: the bar has %d lines, want 1", name, got.BarLines)
	}
	for i, guess := range []string{"rejected", "accepted"} {
		phone := client(t)
		send(t, phone, http.MethodGet, base+paths.JoinPath(code), nil)
		send(t, phone, http.MethodPost, base+paths.JoinAnswerPath(code), url.Values{"step": {"8"}, "guess": {guess}, "name": {fmt.Sprint("S", i)}})
	}
	waitFor(t, ctx, "two answers", `document.querySelector(".predict-answers").textContent === "2"`)
	checkLayout(t, ctx, name, "room-answers", least)
	run(t, ctx, "reveal", chromedp.KeyEvent(kb.ArrowRight))
	waitFor(t, ctx, "the split", `!document.querySelector(".predict-split").hidden`)
	// The split makes the panel taller; the diagram is fitted again by a
	// ResizeObserver, after layout: on a busy machine that comes a frame
	// or more later, so wait until the drawing sits inside its column.
	waitFor(t, ctx, "the diagram fitted to the reveal", diagramInColumnJS)
	checkLayout(t, ctx, name, "room-reveal", least)
}

// diagramInColumnJS is true once the diagram's drawing ends inside its
// column and the window.
const diagramInColumnJS = `(() => {
	const svg = document.querySelector("svg.diagram");
	if (!svg) return false;
	const r = svg.getBoundingClientRect(), c = svg.parentElement.getBoundingClientRect();
	return r.bottom <= Math.min(c.bottom, innerHeight) + 0.5;
})()`
