package server_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"fencelab/lab/probe"
	"fencelab/server"
	"fencelab/views/paths"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

var updatePictures = flag.Bool("update", false, "take the browser's pictures of docs/ again")

// docsDir is docs/, from the server's package directory.
const docsDir = "../docs"

// picturesRecord holds, for each browser picture of docs/, its size and
// the words it shows.
const picturesRecord = "pictures.txt"

// docsPicture is one browser picture of the README or docs/: how to bring
// the page to what it shows, at which viewport, and whether it is the
// whole page or the viewport.
type docsPicture struct {
	name   string
	w, h   int64
	full   bool
	show   func(t *testing.T, ctx context.Context, base string) (replace []string)
	mobile bool
	dark   bool // under prefers-color-scheme: dark
}

// TestDocsPictures takes the browser screenshots the README and docs/
// show, from a test server at a fixed viewport, and checks that the files
// are fresh; `go test ./server -run TestDocsPictures -update` takes them
// again and records them.
//
// A browser's pixels are not the same on every machine (font hinting,
// antialiasing, the GPU), so the pixels themselves are not compared.
// What is compared is exact on every machine with the same fonts: the
// picture's size, and the words it shows, each text of the page whose
// box is inside the picture, in document order, with the run ids, room
// codes and ports that change on every run replaced by placeholders.
// docs/pictures.txt records both beside the PNGs. A change to what a
// picture says (a word, a label, a value, a row that moves into or out of
// view) fails here until the pictures are taken again; a change of colour
// alone is not seen.
func TestDocsPictures(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped under -short")
	}
	base := startRoomServer(t, server.RoomConfig{})
	record, err := readPicturesRecord(filepath.Join(docsDir, picturesRecord))
	if err != nil && !*updatePictures {
		t.Fatalf("%v: go test ./server -run TestDocsPictures -update takes the pictures and writes it", err)
	}
	var mu sync.Mutex
	taken := map[string]pictureRecord{}
	t.Cleanup(func() {
		if !*updatePictures || t.Failed() {
			return
		}
		if err := writePicturesRecord(filepath.Join(docsDir, picturesRecord), taken); err != nil {
			t.Error(err)
		}
	})
	for _, p := range docsPictures {
		t.Run(p.name, func(t *testing.T) {
			ctx := newBrowser(t)
			opts := []chromedp.EmulateViewportOption{}
			if p.mobile {
				opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
			}
			run(t, ctx, "viewport", chromedp.EmulateViewport(p.w, p.h, opts...))
			dark(t, ctx, p.dark)
			replace := p.show(t, ctx, base)
			settle(t, ctx)
			got := pictureRecord{words: normalise(eval[string](t, ctx, pictureWordsJS(p.full)), replace)}
			shot := takePicture(t, ctx, p)
			got.w, got.h = pngSize(t, p.name, shot)
			keep := filepath.Join(artefacts(t), "docs-"+p.name)
			if err := os.WriteFile(keep, shot, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("screenshot: %s", keep)
			if *updatePictures {
				if err := os.WriteFile(filepath.Join(docsDir, p.name), shot, 0o644); err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				taken[p.name] = got
				mu.Unlock()
				return
			}
			checkPicture(t, p, record[p.name], got)
		})
	}
}

// docsPictures are the pictures, each named as the docs name it.
var docsPictures = []docsPicture{
	// README: the run page of a saved paused-worker, whole.
	{name: "run-page.png", w: 1280, h: 900, full: true, show: func(t *testing.T, ctx context.Context, base string) []string {
		id := saveRunAt(t, base, "paused-worker")
		run(t, ctx, "open the run", chromedp.Navigate(base+paths.RunPath(id)), chromedp.WaitVisible(chromedp.CSS("table.steps .copy-step")))
		return []string{id, "{run}"}
	}},
	// README: the editor on a copy of paused-worker.
	{name: "editor.png", w: 1280, h: 860, show: func(t *testing.T, ctx context.Context, base string) []string {
		run(t, ctx, "open the editor", chromedp.Navigate(base+paths.Link(paths.RouteEditor, "paused-worker", nil)),
			chromedp.WaitVisible(chromedp.CSS(".diagram")))
		waitFor(t, ctx, "the replay", `!document.querySelector("[aria-busy]")`)
		return nil
	}},
	// classroom.md: presenting paused-worker at step 8 on a 1280×720 projector.
	{name: "present.png", w: 1280, h: 720, show: func(t *testing.T, ctx context.Context, base string) []string {
		openPresent(t, ctx, base+paths.PresentPathOf(paths.ScenarioPath("paused-worker"))+"#step-8", 1280, 720)
		waitFor(t, ctx, "step 8", `document.querySelector("#step-8.is-current") !== null && document.querySelector("#step-8").getBoundingClientRect().bottom <= innerHeight`)
		return nil
	}},
	// classroom.md: the same, on a system set to dark.
	{name: "present-dark.png", w: 1280, h: 720, dark: true, show: func(t *testing.T, ctx context.Context, base string) []string {
		openPresent(t, ctx, base+paths.PresentPathOf(paths.ScenarioPath("paused-worker"))+"#step-8", 1280, 720)
		waitFor(t, ctx, "step 8", `document.querySelector("#step-8.is-current") !== null && document.querySelector("#step-8").getBoundingClientRect().bottom <= innerHeight`)
		return nil
	}},
	// classroom.md: the presenter's screen at the reveal of a live room.
	{name: "room-reveal.png", w: 1280, h: 720, show: showRoomReveal},
	// explorer.md: the explorer on paused-worker.
	{name: "explore.png", w: 1280, h: 960, show: func(t *testing.T, ctx context.Context, base string) []string {
		run(t, ctx, "open the explorer", chromedp.Navigate(base+paths.Link(paths.RouteExplore, "paused-worker", nil)),
			chromedp.WaitVisible(chromedp.ID("x-chart-h")))
		return nil
	}},
	// probe.md: a saved probe of the forgetful receiver, at its table.
	{name: "probe.png", w: 1100, h: 680, show: func(t *testing.T, ctx context.Context, base string) []string {
		p, sc, res, _ := probeForgetfulCounted(t)
		played, err := p.SavedScenario(sc, res)
		if err != nil {
			t.Fatal(err)
		}
		link, err := probe.Save(t.Context(), base, played, res)
		if err != nil {
			t.Fatalf("save the probe: %v", err)
		}
		run(t, ctx, "open the probe", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(".observed-first")))
		eval[chromedp.Void](t, ctx, `document.querySelector(".observed-first").closest("section").scrollIntoView({block: "start"})`)
		return []string{strings.TrimPrefix(link, base+"/r/"), "{run}"}
	}},
}

// showRoomReveal starts a live room on paused-worker, has two phones
// answer step 8 (one right, one wrong) and reveals the answer.
func showRoomReveal(t *testing.T, teacher context.Context, base string) []string {
	openPresent(t, teacher, base+paths.PresentPathOf(paths.ScenarioPath("paused-worker")), 1280, 720)
	run(t, teacher, "start a live room", chromedp.Click(chromedp.CSS(".present-menu > summary")),
		chromedp.Click(chromedp.CSS(".room-start button")), chromedp.WaitVisible(chromedp.CSS(".room-join-code")))
	code := strings.TrimSpace(eval[string](t, teacher, `document.querySelector(".room-join-code").textContent`))
	room := eval[string](t, teacher, `document.querySelector(".present").dataset.room`)
	run(t, teacher, "fold the invitation", chromedp.Click(chromedp.CSS(".room-join-summary")))
	var phones []context.Context
	for range 2 {
		phone := newTab(t, teacher)
		run(t, phone, "a student joins", chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile),
			chromedp.Navigate(base+paths.JoinPath(code)), chromedp.WaitVisible(chromedp.CSS(".student-step.is-current")))
		waitFor(t, phone, "the stream", `document.querySelector(".student").classList.contains("student-js")`)
		phones = append(phones, phone)
	}
	waitFor(t, teacher, "two students", `document.querySelector(".room-students").textContent === "2"`)
	run(t, teacher, "go to step 8", chromedp.KeyEvent(kb.End))
	for i, guess := range []string{"rejected", "accepted"} {
		waitFor(t, phones[i], "the question", `!document.querySelector('.student-step[data-step="8"] .student-choices').hidden`)
		run(t, phones[i], "answer "+guess, chromedp.Click(chromedp.CSS(`.student-step[data-step="8"] button[value="`+guess+`"]`)))
		waitFor(t, phones[i], "the answer taken", `!document.querySelector('.student-step[data-step="8"] .student-mine').hidden`)
	}
	waitFor(t, teacher, "two answers", `document.querySelector(".predict-waiting").textContent.replace(/\s+/g, " ").startsWith("2 of 2 answered")`)
	run(t, teacher, "reveal", chromedp.KeyEvent(kb.ArrowRight))
	waitFor(t, teacher, "the split", `!document.querySelector(".predict-split").hidden`)
	return []string{code, "{code}", room, "{room}"}
}

// settle waits for the fonts and two frames, and for present-fit.js and
// smooth scrolling to end.
func settle(t *testing.T, ctx context.Context) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.fonts.ready.then(() => new Promise(r =>
		requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => r(true), 400)))))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("settle: %v", err)
	}
}

// pictureWordsJS returns, one to a line, the texts of the page whose box
// is inside the viewport (or anywhere on the page, for a whole-page
// picture), in document order, SVG labels included.
func pictureWordsJS(full bool) string {
	return fmt.Sprintf(`(() => {
	const full = %v;
	const W = full ? document.documentElement.scrollWidth : innerWidth;
	const H = full ? document.documentElement.scrollHeight : innerHeight;
	const dx = full ? scrollX : 0, dy = full ? scrollY : 0;
	const out = [];
	const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	for (let n; (n = walk.nextNode());) {
		const text = n.textContent.replace(/\s+/g, " ").trim();
		if (!text || !n.parentElement) continue;
		const st = getComputedStyle(n.parentElement);
		if (st.visibility !== "visible" || Number(st.opacity) === 0) continue;
		const r = document.createRange();
		r.selectNodeContents(n);
		const b = r.getBoundingClientRect();
		if (b.width < 1 || b.height < 1) continue;
		const x = b.left + dx, y = b.top + dy;
		if (x + b.width <= 0 || y + b.height <= 0 || x >= W || y >= H) continue;
		out.push(text);
	}
	return out.join("\n");
})()`, full)
}

// ports are the loopback addresses of the test's servers, and times the
// moments a run was saved: both change from run to run.
var (
	ports = regexp.MustCompile(`127\.0\.0\.1:[0-9]+`)
	times = regexp.MustCompile(`[0-9]{1,2} [A-Z][a-z]{2} [0-9]{4}, [0-9]{2}:[0-9]{2} UTC`)
)

// normalise replaces what changes from run to run: each of replace's
// pairs (old, new), loopback ports and times.
func normalise(words string, replace []string) string {
	words = strings.NewReplacer(replace...).Replace(words)
	words = ports.ReplaceAllString(words, "127.0.0.1:{port}")
	return times.ReplaceAllString(words, "{time}")
}

// takePicture is the screenshot of p: the viewport, or the whole page.
func takePicture(t *testing.T, ctx context.Context, p docsPicture) []byte {
	t.Helper()
	shot := chromedp.CaptureScreenshot()
	if p.full {
		shot = chromedp.FullScreenshot(100)
	}
	b, err := chromedp.Run(ctx, shot)
	if err != nil {
		t.Fatalf("screenshot %s: %v", p.name, err)
	}
	return b
}

func pngSize(t *testing.T, name string, b []byte) (int, int) {
	t.Helper()
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return cfg.Width, cfg.Height
}

// pictureRecord is a picture's size and the words it shows.
type pictureRecord struct {
	w, h  int
	words string
}

// checkPicture compares what the page shows now with what was recorded
// when docs/NAME was taken, and the file with the record. A whole page's
// height may differ by 2% (a font a pixel taller over a long page).
func checkPicture(t *testing.T, p docsPicture, want, got pictureRecord) {
	t.Helper()
	again := "go test ./server -run TestDocsPictures -update takes it again"
	if want.w == 0 {
		t.Fatalf("docs/%s is not in docs/%s: %s", p.name, picturesRecord, again)
	}
	b, err := os.ReadFile(filepath.Join(docsDir, p.name))
	if err != nil {
		t.Fatalf("%v: %s", err, again)
	}
	if w, h := pngSize(t, p.name, b); w != want.w || h != want.h {
		t.Errorf("docs/%s is %dx%d, but docs/%s records %dx%d: %s", p.name, w, h, picturesRecord, want.w, want.h, again)
	}
	tolerance := 0
	if p.full {
		tolerance = want.h / 50
	}
	if got.w != want.w || got.h < want.h-tolerance || got.h > want.h+tolerance {
		t.Errorf("docs/%s is out of date: the page is now %dx%d, the picture %dx%d: %s", p.name, got.w, got.h, want.w, want.h, again)
	}
	if got.words != want.words {
		t.Errorf("docs/%s is out of date: the words it shows differ from the page's now, first at %s: %s", p.name, firstDifference(want.words, got.words), again)
	}
}

// firstDifference says where two texts' lines first differ.
func firstDifference(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(a), len(b)) {
		line := func(l []string) string {
			if i < len(l) {
				return fmt.Sprintf("%q", l[i])
			}
			return "(no line)"
		}
		if i >= len(a) || i >= len(b) || a[i] != b[i] {
			return fmt.Sprintf("line %d: the picture shows %s, the page %s", i+1, line(a), line(b))
		}
	}
	return "(no difference)"
}

// The record: a header, then for each picture a line "== NAME WxH" and
// the words it shows.
const picturesHeader = `# The browser's pictures of docs/: each one's size and the words it
# shows, as server/docs_pictures_browser_test.go (TestDocsPictures) read
# them when it took the picture. Written by
# go test ./server -run TestDocsPictures -update
`

func readPicturesRecord(path string) (map[string]pictureRecord, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]pictureRecord{}
	var name string
	var rec pictureRecord
	var words []string
	flush := func() {
		if name != "" {
			rec.words = strings.Join(words, "\n")
			out[name] = rec
		}
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		head, ok := strings.CutPrefix(line, "== ")
		switch {
		case ok:
			flush()
			words, rec = nil, pictureRecord{}
			if _, err := fmt.Sscanf(head, "%s %dx%d", &name, &rec.w, &rec.h); err != nil {
				return nil, fmt.Errorf("%s:%d: %q is not \"== NAME WxH\": %v", path, i+1, line, err)
			}
		case name == "" && strings.HasPrefix(line, "#"):
		case name == "":
			return nil, fmt.Errorf("%s:%d: %q comes before any picture", path, i+1, line)
		default:
			words = append(words, line)
		}
	}
	flush()
	return out, nil
}

func writePicturesRecord(path string, taken map[string]pictureRecord) error {
	var b strings.Builder
	b.WriteString(picturesHeader)
	names := make([]string, 0, len(taken))
	for name := range taken {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		r := taken[name]
		fmt.Fprintf(&b, "== %s %dx%d\n%s\n", name, r.w, r.h, r.words)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
