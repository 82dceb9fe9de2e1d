package server_test

import (
	"net/http"
	"net/url"
	"testing"

	"fencelab/server"
	"fencelab/views/paths"

	"github.com/chromedp/chromedp"
)

// darkPage is a page seen under one colour scheme of the reader's system.
type darkPage struct {
	name, path, ready string
	w, h              int64
	system            bool // the emulated prefers-color-scheme is dark
	dark              bool // the page must be dark
	diagram           bool // the page draws a diagram, on its white panel
}

// TestDarkPagesInBrowser opens the presentation, the live room's pages
// and the embed under each scheme of the reader's system, and checks in
// Chromium that each turns dark or stays light as it should: the page's
// background, and the diagram's white panel, which stays white in both.
// An embed asked for ?theme= keeps that theme whatever the system. The
// screenshots are kept as dark-NAME.png. axe-core checks the contrast of
// the same pages in TestAccessibility.
func TestDarkPagesInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped under -short")
	}
	base := startRoomServer(t, server.RoomConfig{})
	id := saveRunAt(t, base, "paused-worker")
	presenter := client(t)
	room, code := startRoom(t, base, presenter)
	if res, _ := send(t, presenter, http.MethodPost, base+paths.RoomStepPath(room), url.Values{"step": {"8"}}); res.StatusCode != http.StatusNoContent {
		t.Fatalf("move the room to step 8: %d", res.StatusCode)
	}
	embed := paths.EmbedPathOf(paths.ScenarioPath("paused-worker"))
	pages := []darkPage{
		{"present", paths.PresentPathOf(paths.ScenarioPath("paused-worker")) + "#step-8", ".present-js", 1280, 720, true, true, true},
		{"present-light", paths.PresentPathOf(paths.ScenarioPath("paused-worker")) + "#step-8", ".present-js", 1280, 720, false, false, true},
		{"present-opening", paths.PresentPathOf(paths.ScenarioPath("paused-worker")), ".present-js", 1280, 720, true, true, false},
		{"present-predict", paths.PresentPathOf(paths.RunPath(id)) + "?predict=1#step-8", ".present-js", 1024, 768, true, true, true},
		{"present-phone", paths.PresentPathOf(paths.ScenarioPath("paused-worker")) + "#step-8", ".present-js", 390, 844, true, true, true},
		{"join", paths.RouteJoinForm, "#join-code", 390, 844, true, true, false},
		{"student", paths.JoinPath(code), ".student-js", 390, 844, true, true, false},
		{"summary", paths.RoomPath(room), "main", 1280, 900, true, true, false},
		{"embed", embed, ".diagram", 900, 900, true, true, true},
		{"embed-light", embed, ".diagram", 900, 900, false, false, true},
		{"embed-theme-light", embed + "?theme=light", ".diagram", 900, 900, true, false, true},
		{"embed-theme-dark", embed + "?theme=dark", ".diagram", 900, 900, false, true, true},
	}
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			ctx := newBrowser(t)
			dark(t, ctx, p.system)
			run(t, ctx, "open "+p.path, chromedp.EmulateViewport(p.w, p.h), chromedp.Navigate(base+p.path),
				chromedp.WaitReady(chromedp.CSS(p.ready)))
			settle(t, ctx)
			got := eval[struct{ Page, Panel float64 }](t, ctx, `(() => {
				const lum = el => {
					if (!el) return -1;
					const m = getComputedStyle(el).backgroundColor.match(/[\d.]+/g).map(Number);
					const lin = c => (c /= 255) <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
					return 0.2126 * lin(m[0]) + 0.7152 * lin(m[1]) + 0.0722 * lin(m[2]);
				};
				return {Page: lum(document.body), Panel: lum(document.querySelector(".diagram-wrap"))};
			})()`)
			if isDark := got.Page < 0.05; isDark != p.dark || (!p.dark && got.Page < 0.9) {
				t.Errorf("%s (system dark: %v): the page's background has luminance %.3f, want it dark: %v", p.path, p.system, got.Page, p.dark)
			}
			if p.diagram && got.Panel != 1 {
				t.Errorf("%s (system dark: %v): the diagram's panel has luminance %.3f, want white", p.path, p.system, got.Panel)
			}
			screenshot(t, ctx, "dark-"+p.name)
		})
	}
}
