package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"fencelab/lab"
	"fencelab/scenarios"
	"fencelab/views/paths"

	"github.com/chromedp/chromedp"
)

// embedCase is a page whose oEmbed frame is checked: its link and, for the
// log, a name.
type embedCase struct{ name, path string }

// TestOEmbedEveryFrameFits asks the oEmbed height of every built-in and of
// saved runs with unusual titles, notes and policy choices at each of
// fitWidths, opens each frame's page at that width, and checks the height
// against the page's: no scrollbar, at most 2% to spare. Each width has
// its own tab and deadline, in parallel. It logs the range of errors per
// width; -v logs each page and its parts.
func TestOEmbedEveryFrameFits(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped under -short")
	}
	base := startServer(t)
	cases := oembedCases(t, base)
	for _, width := range fitWidths {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			ctx := newBrowser(t)
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, c := range cases {
				e := checkFrameFits(t, ctx, base, c, width)
				lo, hi = math.Min(lo, e), math.Max(hi, e)
			}
			t.Logf("at %d px: from %+.1f%% to %+.1f%%", width, 100*lo, 100*hi)
		})
	}
}

// checkFrameFits checks the oEmbed frame of c at width against its page,
// and returns the height's error, a fraction of the page's.
func checkFrameFits(t *testing.T, ctx context.Context, base string, c embedCase, width int) float64 {
	t.Helper()
	src, frame := oembedFrame(t, base, c.path, width)
	if s := frameSrc(frame.html); s != "" {
		src = s
	}
	run(t, ctx, "open "+src, chromedp.EmulateViewport(int64(width), 200),
		chromedp.Navigate(src), chromedp.WaitReady(chromedp.CSS("table.steps")))
	content := eval[int](t, ctx, `document.documentElement.scrollHeight`)
	e := float64(frame.height)/float64(content) - 1
	if frame.height < content || float64(frame.height) > 1.02*float64(content) {
		t.Errorf("oEmbed of %s, maxwidth=%d: height %d for a page %d pixels tall (%+.1f%%), want from %d to %d",
			c.name, width, frame.height, content, 100*e, content, int(1.02*float64(content)))
	}
	if width <= 500 && eval[bool](t, ctx, `(w => w.scrollWidth > w.clientWidth)(document.querySelector(".diagram-wrap"))`) {
		t.Errorf("embed of %s at %d pixels: the diagram's box scrolls sideways; want the whole diagram, result lane included", c.name, width)
	}
	// An actor's chip is one line, whole, inside its cell: names up to the
	// model's limit (16 characters) fit.
	if bad := eval[string](t, ctx, actorChipsSpill); bad != "" {
		t.Errorf("embed of %s at %d pixels: actor chips that wrap, are cut or spill out of their cell: %s", c.name, width, bad)
	}
	if testing.Verbose() {
		t.Logf("%-40s %d: oEmbed %5d page %5d %+.1f%% parts %s", c.name, width, frame.height, content, 100*e,
			eval[string](t, ctx, embedParts))
	}
	return e
}

// actorChipsSpill lists the actor chips of the step table that hide part
// of the name or reach out of their cell, or, in the wide table (a row is a
// table row, not a card) or in a card with room for it, take more than one
// line.
const actorChipsSpill = `[...document.querySelectorAll(".steps .actor")].filter(a => {
	const r = a.getBoundingClientRect(), c = a.closest("td, th").getBoundingClientRect();
	const card = getComputedStyle(a.closest("tr")).display === "grid";
	const roomy = card && c.width > 180;
	return (r.height > 30 && (!card || roomy)) || a.scrollWidth > a.clientWidth + 1 || r.right > c.right + .5 || r.left < c.left - .5;
}).map(a => a.textContent + " " + Math.round(a.getBoundingClientRect().width) + "x" + Math.round(a.getBoundingClientRect().height)).join(", ")`

// fitWidths are the frame widths checked: wide, just wider than the
// breakpoint where rows turn into cards, and narrow.
var fitWidths = []int{900, 721, 700, 500, 320}

// embedParts measures the page's parts, for the log.
const embedParts = `[".embed-head", ".diagram-wrap", ".table-wrap", ".embed-foot"].map(s => document.querySelector(s).getBoundingClientRect().height.toFixed(1)).join(" ") +
 " rows " + [...document.querySelectorAll("table.steps tbody tr")].map(r => r.getBoundingClientRect().height.toFixed(1)).join(",")`

var srcAttr = regexp.MustCompile(`src="([^"]*)"`)

// frameSrc is the address an oEmbed answer's iframe shows.
func frameSrc(frame string) string {
	m := srcAttr.FindStringSubmatch(frame)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// oembedCases is every built-in, and saved runs of paused-worker with one
// policy, with every policy, with a long title holding HTML, and with long
// notes.
func oembedCases(t *testing.T, base string) []embedCase {
	var cases []embedCase
	for _, name := range scenarios.Order() {
		cases = append(cases, embedCase{name, paths.ScenarioPath(name)})
	}
	id := saveRunAt(t, base, "paused-worker")
	cases = append(cases,
		embedCase{"run, fenced only", paths.RunPath(id) + "?p=fenced"},
		embedCase{"run, every policy", paths.RunPath(id) + "?p=" + strings.Join(everyPolicy(), "&p=")},
		embedCase{"run, long title with HTML", paths.RunPath(saveEdited(t, base, "split-brain", func(s map[string]any) {
			s["title"] = (`<b>Bold</b> & <script>alert(1)</script>: ` + strings.Repeat("a very long title that wraps, ", 6))[:lab.MaxTitle]
		}))},
		embedCase{"run, long notes", paths.RunPath(saveEdited(t, base, "duplicate-retry", func(s map[string]any) {
			for i, e := range s["events"].([]any) {
				note := strings.Repeat(fmt.Sprintf("note %d says more and more-and-more ", i), i%4) + "https://example.com/a/very/long/unbroken/path/" + strings.Repeat("x", 40)
				e.(map[string]any)["note"] = note[:min(len(note), lab.MaxNote)]
			}
		}))},
		embedCase{"run, actor names of 16 characters", paths.RunPath(saveEdited(t, base, "paused-worker", func(s map[string]any) {
			for _, e := range s["events"].([]any) {
				e := e.(map[string]any)
				e["actor"] = map[any]string{"A": "worker-1", "B": "reconciler-0042x"}[e["actor"]]
			}
		}))},
		embedCase{"run, hyphenated actors, CJK title", paths.RunPath(saveEdited(t, base, "paused-worker", func(s map[string]any) {
			s["title"] = "暂停的工作者写入了旧的结果，而租约早已过期：一个很长的标题 ✓"
			for _, e := range s["events"].([]any) {
				e := e.(map[string]any)
				e["actor"] = map[any]string{"A": "lease-holder-a", "B": "standby-b"}[e["actor"]]
			}
		}))},
	)
	return cases
}

// everyPolicy names every policy of the lab.
func everyPolicy() []string {
	var names []string
	for _, p := range lab.Policies() {
		names = append(names, string(p))
	}
	return names
}

// saveEdited saves the built-in name as edit changes it, and returns the run's id.
func saveEdited(t *testing.T, base, name string, edit func(map[string]any)) string {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal([]byte(builtinSource(t, name)), &s); err != nil {
		t.Fatal(err)
	}
	edit(s)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Post(base+"/api/runs", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatalf("POST /api/runs: %v", err)
	}
	defer res.Body.Close()
	var saved struct{ ID string }
	if err := json.NewDecoder(res.Body).Decode(&saved); err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/runs of an edited %s = %d (%v)", name, res.StatusCode, err)
	}
	return saved.ID
}
