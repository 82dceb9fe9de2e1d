package server_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fencelab/lab"
	"fencelab/server"
	"fencelab/views/paths"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// axeSource is axe-core's axe.min.js: the file FENCELAB_AXE names, which
// .ci/run installs from npm (axe-core@4), or one in a node_modules beside
// the checkout. Locally the audit skips without it; where browser tests
// are required it fails instead.
func axeSource(t *testing.T) string {
	t.Helper()
	candidates := []string{os.Getenv("FENCELAB_AXE"), filepath.Join("..", "node_modules", "axe-core", "axe.min.js")}
	for _, path := range candidates {
		if path == "" {
			continue
		}
		if b, err := os.ReadFile(path); err == nil {
			return string(b)
		}
	}
	if os.Getenv("FENCELAB_BROWSER_TESTS") == "required" {
		t.Fatalf("axe-core is required: set FENCELAB_AXE to axe.min.js (npm install axe-core@4)")
	}
	t.Skip("no axe-core (set FENCELAB_AXE to axe.min.js): accessibility audit skipped")
	return ""
}

// axeRun runs axe on the page with the WCAG 2.1 A and AA rules and
// returns one line per serious or critical violation: rule, impact and
// the first nodes it names.
const axeRun = `axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}, resultTypes: ["violations"]})
  .then(r => r.violations
    .filter(v => v.impact === "serious" || v.impact === "critical")
    .map(v => v.id + " (" + v.impact + ", " + v.nodes.length + " nodes): " +
      v.nodes.slice(0, 3).map(n => n.target.join(" ") + " " + (n.failureSummary || "").split("\n").slice(1, 2).join("")).join(" | ")))`

// auditPage is one page of the audit: where it is, and what shows it is drawn.
type auditPage struct {
	name, path, ready string
}

// TestAccessibility audits every kind of page with axe-core at a desktop
// and a phone width, and fails on any serious or critical violation of
// WCAG 2.1 A or AA.
func TestAccessibility(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped under -short")
	}
	axe := axeSource(t)
	base := startRoomServer(t, server.RoomConfig{})
	id := saveRunAt(t, base, "paused-worker")
	all := paths.Link(paths.ScenarioPath("paused-worker"), "", lab.Policies())
	pages := []auditPage{
		{"home", paths.RouteHome, ".gallery"},
		{"scenario", paths.ScenarioPath("paused-worker"), ".diagram"},
		{"scenario-all", all, ".diagram"},
		{"run", paths.RunPath(id), "table.steps .copy-step"},
		{"editor-blank", paths.RouteEditor, "main"},
		{"editor-builtin", paths.Link(paths.RouteEditor, "paused-worker", nil), ".diagram"},
		{"explore", paths.Link(paths.RouteExplore, "paused-worker", nil), "#x-events-h"},
		{"present", paths.PresentPathOf(paths.ScenarioPath("paused-worker")), ".present-table"},
		{"embed", paths.EmbedPathOf(paths.RunPath(id)) + "?d=unfenced", ".diagram"},
		// A host page may fix the embed's colours whatever the system.
		{"embed-theme-dark", paths.EmbedPathOf(paths.ScenarioPath("paused-worker")) + "?theme=dark", ".diagram"},
		{"embed-theme-light", paths.EmbedPathOf(paths.ScenarioPath("paused-worker")) + "?theme=light", ".diagram"},
		{"join", paths.RouteJoinForm, "#join-code"},
		{"import", paths.RouteImport, "main"},
		{"compare", paths.ComparePath("paused-worker", "old-token-first"), "table.compare"},
		{"error", "/no-such-page", "main"},
	}
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			ctx := auditTab(t, p.name != "error")
			for _, width := range []int64{1280, 390} {
				audit(t, ctx, axe, base, p, width)
			}
			// Dark mode (prefers-color-scheme: dark) keeps every page clean
			// too: each turns dark, but an embed asked for ?theme=light.
			dark(t, ctx, true)
			audit(t, ctx, axe, base, auditPage{p.name + " (dark)", p.path, p.ready}, 1280)
			dark(t, ctx, false)
		})
	}
	t.Run("room", func(t *testing.T) { auditRoom(t, auditTab(t, true), axe, base) })
}

// dark turns the emulated prefers-color-scheme to dark, or back.
func dark(t *testing.T, ctx context.Context, on bool) {
	t.Helper()
	params := emulation.SetEmulatedMediaParams{}
	if on {
		params.Features = []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}
	}
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, params); err != nil {
		t.Fatalf("emulate prefers-color-scheme: %v", err)
	}
}

// auditTab is newBrowser with a longer deadline, for a page at two widths,
// and the console watched only when watch is set: the error page's own
// status is logged as an error by the browser.
func auditTab(t *testing.T, watch bool) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("FENCELAB_BROWSER_TESTS") == "required" {
			t.Fatalf("browser tests are required, but Chromium is missing: %v", err)
		}
		t.Skipf("no Chromium at %s: browser test skipped", chromiumPath)
	}
	t.Parallel()
	browser, err := startBrowser()
	if err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	tab, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("open a fresh browser context: %v", err)
	}
	if watch {
		watchConsole(t, tab)
	}
	ctx, cancelSteps := context.WithTimeout(tab, 4*browserTimeout)
	t.Cleanup(cancelSteps)
	return ctx
}

// auditRoom starts a live room, asks a question and audits its pages in
// both schemes: the presenter's screen, a student's, and the summary.
func auditRoom(t *testing.T, ctx context.Context, axe, base string) {
	t.Helper()
	run(t, ctx, "open the presentation", chromedp.EmulateViewport(1280, 720),
		chromedp.Navigate(base+paths.PresentPathOf(paths.ScenarioPath("paused-worker"))), chromedp.WaitVisible(chromedp.CSS(".present-table")))
	run(t, ctx, "start a live room", chromedp.Click(chromedp.CSS(".present-menu > summary")),
		chromedp.Click(chromedp.CSS(".room-start button")), chromedp.WaitVisible(chromedp.CSS(".room-join-code")))
	code := strings.TrimSpace(eval[string](t, ctx, `document.querySelector(".room-join-code").textContent`))
	room := eval[string](t, ctx, `document.querySelector(".present").dataset.room`)
	presenter := eval[string](t, ctx, `location.pathname + location.search`)
	// The room asks step 8, so that a phone shows the two answers.
	run(t, ctx, "ask step 8", chromedp.KeyEvent(kb.End))
	waitFor(t, ctx, "the question panel", `!document.querySelector(".predict").hidden`)
	for _, scheme := range []string{"", " (dark)"} {
		dark(t, ctx, scheme != "")
		for _, width := range []int64{1280, 390} {
			audit(t, ctx, axe, base, auditPage{"room-presenter" + scheme, presenter, ".room-join-code"}, width)
			audit(t, ctx, axe, base, auditPage{"room-student" + scheme, paths.JoinPath(code), "main"}, width)
			audit(t, ctx, axe, base, auditPage{"room-summary" + scheme, paths.RoomPath(room), "main"}, width)
		}
	}
	dark(t, ctx, false)
}

// audit opens p at width and reports each serious or critical violation.
func audit(t *testing.T, ctx context.Context, axe, base string, p auditPage, width int64) {
	t.Helper()
	what := fmt.Sprintf("%s at %d px", p.name, width)
	run(t, ctx, "open "+what, chromedp.EmulateViewport(width, 900),
		chromedp.Navigate(base+p.path), chromedp.WaitReady(chromedp.CSS(p.ready)))
	if !eval[bool](t, ctx, `typeof axe !== "undefined"`) {
		eval[chromedp.Void](t, ctx, axe+";undefined")
	}
	found, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe on %s: %v", what, err)
	}
	for _, v := range found {
		t.Errorf("axe on %s (%s): %s", what, p.path, v)
	}
}
