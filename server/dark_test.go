package server_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"fencelab/static"
	"fencelab/views/paths"
)

// TestDarkModePages: every page follows the reader's system
// (prefers-color-scheme): none is marked light-only, the presentation,
// the live rooms and the embed among them.
func TestDarkModePages(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	id := saveRun(t, s, "paused-worker")
	for _, path := range []string{
		paths.RouteImport,
		paths.ScenarioPath("paused-worker"),
		paths.RouteEditor,
		paths.PresentPathOf(paths.ScenarioPath("paused-worker")),
		paths.PresentPathOf(paths.RunPath(id)),
		paths.RouteJoinForm,
		paths.EmbedPathOf(paths.ScenarioPath("paused-worker")),
		paths.EmbedPathOf(paths.RunPath(id)),
	} {
		res := getPage(t, s, path)
		if res.Code != http.StatusOK {
			t.Fatalf("GET %s: %d", path, res.Code)
		}
		if c := htmlClass(res.Body.String()); c != "" {
			t.Errorf("GET %s: <html class=%q>, want no class: the page follows the system", path, c)
		}
	}
}

// TestEmbedTheme: an embed's host may ask for light or dark colours
// whatever the reader's system; anything else is refused with a sentence,
// and each answer is kept apart in the page cache.
func TestEmbedTheme(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	id := saveRun(t, s, "paused-worker")
	for _, embed := range []string{paths.EmbedPathOf(paths.ScenarioPath("paused-worker")), paths.EmbedPathOf(paths.RunPath(id)) + "?d=unfenced"} {
		sep := "?"
		if strings.Contains(embed, "?") {
			sep = "&"
		}
		for _, c := range []struct{ theme, class string }{
			{"light", "light-only"}, {"dark", "dark-only"}, {"", ""}, {"light", "light-only"},
		} {
			path := embed
			if c.theme != "" {
				path += sep + "theme=" + c.theme
			}
			res := getPage(t, s, path)
			if res.Code != http.StatusOK {
				t.Fatalf("GET %s: %d", path, res.Code)
			}
			if got := htmlClass(res.Body.String()); got != c.class {
				t.Errorf("GET %s: <html class=%q>, want %q", path, got, c.class)
			}
		}
		bad := embed + sep + "theme=solarized"
		res := getPage(t, s, bad)
		if res.Code != http.StatusBadRequest || !strings.Contains(res.Body.String(), "light or dark") {
			t.Errorf("GET %s: %d, want 400 naming the themes; body starts %.300q", bad, res.Code, res.Body.String())
		}
	}
}

// TestOEmbedTheme: the oEmbed answer's frame carries the theme asked of
// it, and refuses an unknown one.
func TestOEmbedTheme(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	link := "http://example.com" + paths.ScenarioPath("paused-worker")
	res := get(t, s, paths.OEmbedPath(link)+"&theme=light")
	if res.Code != http.StatusOK {
		t.Fatalf("oEmbed with theme=light: %d %s", res.Code, res.Body)
	}
	if want := `/scenarios/paused-worker/embed?theme=light`; !strings.Contains(res.Body.String(), want) {
		t.Errorf("oEmbed with theme=light: the frame's src lacks %s: %s", want, res.Body)
	}
	if res := get(t, s, paths.OEmbedPath(link)+"&theme=sepia"); res.Code != http.StatusBadRequest {
		t.Errorf("oEmbed with theme=sepia: %d, want 400", res.Code)
	}
}

// TestEmbedDarkIsSiteDark: embed.css's ?theme=dark block is site.css's
// dark mode with :root.dark-only for :root:not(.light-only), so that a
// dark embed has the colours the audited dark pages have.
func TestEmbedDarkIsSiteDark(t *testing.T) {
	t.Parallel()
	site := cssBlock(t, "css/site.css", "@media screen and (prefers-color-scheme: dark) {\n  :root:not(.light-only) {")
	embed := cssBlock(t, "css/embed.css", "@media screen {\n  :root.dark-only {")
	if want := strings.ReplaceAll(site, ":root:not(.light-only)", ":root.dark-only"); embed != want {
		t.Errorf("embed.css's ?theme=dark block differs from site.css's dark mode: copy site.css's block, with :root.dark-only.\nembed.css:\n%s\nwant:\n%s", embed, want)
	}
}

// cssBlock is the body of the block of file that opens with the line
// before start's last line, up to its closing brace in the first column.
func cssBlock(t *testing.T, file, start string) string {
	t.Helper()
	b, err := static.FS.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, start)
	if i < 0 {
		t.Fatalf("%s has no block starting %q", file, start)
	}
	body := s[i+strings.Index(start, "\n")+1:]
	end := strings.Index(body, "\n}\n")
	if end < 0 {
		t.Fatalf("%s: the block starting %q is not closed", file, start)
	}
	return body[:end+1]
}

// getPage is get, but for an embed too, which may be framed and so lacks
// the headers get checks (TestOnlyEmbedIsFramable checks its own).
func getPage(t *testing.T, h http.Handler, target string) *httptest.ResponseRecorder {
	t.Helper()
	if !strings.Contains(target, "/embed") {
		return get(t, h, target)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	return rec
}

// htmlClass is the class attribute of the page's <html>.
func htmlClass(page string) string {
	const open = `<html lang="en" class="`
	i := strings.Index(page, open)
	if i < 0 {
		return ""
	}
	rest := page[i+len(open):]
	return rest[:strings.Index(rest, `"`)]
}
