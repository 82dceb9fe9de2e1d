package server

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/views"
	"fencelab/views/diagram"
	"fencelab/views/export"
	"fencelab/views/paths"
)

// Sharing a run where postmortems live: pictures (PNG) for documents and
// previews, an embeddable page for another site's frame, and the link
// preview tags of the pages.

const pngType = "image/png"

var errPictureSize = echo.NewHTTPError(http.StatusBadRequest,
	`The picture's ?size= is "card" (1200×630, the default) or "full" (the whole diagram, at twice its size).`)

// embedCSP is the page policy of the embed routes, the only pages any
// site may frame.
const embedCSP = "default-src 'self'; object-src 'none'; base-uri 'none'; " +
	"form-action 'self'; frame-ancestors *"

// framable lets any site frame the answer (the embed routes only):
// frame-ancestors * instead of 'none', and no X-Frame-Options.
func framable(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", embedCSP)
		h.Del("X-Frame-Options")
		h.Set("Cross-Origin-Resource-Policy", "cross-origin")
		return next(c)
	}
}

// shareable lets other sites show the answer, a picture, in an <img>.
func shareable(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Set("Cross-Origin-Resource-Policy", "cross-origin")
		return next(c)
	}
}

// pictureSize reads ?size=.
func pictureSize(c echo.Context) (diagram.Size, error) {
	switch c.QueryParam("size") {
	case "", "card":
		return diagram.Card, nil
	case "full":
		return diagram.Full, nil
	}
	return 0, errPictureSize
}

// handleRunPNG draws a saved run's diagram under ?d= as a PNG.
func (s *Server) handleRunPNG(c echo.Context) error {
	size, err := pictureSize(c)
	if err != nil {
		return err
	}
	sr, err := s.loadSaved(c)
	if err != nil {
		return err
	}
	if sr.Imported != nil {
		if size == diagram.Full {
			done, err := s.renderTurn(c) // full-size pictures are drawn a few at a time
			if err != nil {
				return err
			}
			defer done()
		}
		return writeImportedPNG(c, s.query(c), sr, size)
	}
	return s.writePNG(c, "run "+sr.Run.ID, sr.Scenario, sr.Trace, size)
}

// handleScenarioPNG draws a built-in's diagram under ?d= as a PNG.
func (s *Server) handleScenarioPNG(c echo.Context) error {
	size, err := pictureSize(c)
	if err != nil {
		return err
	}
	b, err := s.builtin(c)
	if err != nil {
		return err
	}
	return s.writePNG(c, "scenario "+b.Name, b.Scenario, lab.Replay(b.Scenario), size)
}

// fullRenders bounds the full-size pictures drawn at once: a 500-event
// run draws at 819×15,373 pixels, about 120 MB while it is drawn, so 16
// at once took 2 GB. More wait their turn, at most renderWait, then
// answer 503; the picture, once drawn, is served from the page cache.
const (
	fullRenders = 2
	renderWait  = 10 * time.Second
)

var errRendersBusy = echo.NewHTTPError(http.StatusServiceUnavailable,
	"The server is drawing as many full-size pictures as it may at once. Please try again in a moment.")

// renderTurn waits for a turn to draw a full-size picture, and returns
// what ends it.
func (s *Server) renderTurn(c echo.Context) (func(), error) {
	t := time.NewTimer(renderWait)
	defer t.Stop()
	select {
	case s.renders <- struct{}{}:
		return func() { <-s.renders }, nil
	case <-t.C:
		c.Response().Header().Set("Retry-After", retryAfter)
		return nil, errRendersBusy
	case <-c.Request().Context().Done():
		return nil, c.Request().Context().Err()
	}
}

// writePNG draws the full diagram under ?d=, or the card: the failure and
// the fix that comparePolicies picks.
func (s *Server) writePNG(c echo.Context, what string, sc *lab.Scenario, tr *lab.Trace, size diagram.Size) error {
	if size == diagram.Full {
		done, err := s.renderTurn(c)
		if err != nil {
			return err
		}
		defer done()
	}
	var buf bytes.Buffer
	q := s.query(c)
	draw := func() error { return diagram.PNG(&buf, sc, tr, q.Diagram, size) }
	if size == diagram.Card {
		a, b := q.pair(tr)
		draw = func() error { return diagram.ComparePNG(&buf, sc, tr, a, b) }
	}
	if err := draw(); err != nil {
		return fmt.Errorf("draw the picture of %s: %w", what, err)
	}
	return c.Blob(http.StatusOK, pngType, buf.Bytes())
}

// scenarioFormats are the ways a built-in can be read at
// /scenarios/{name} and /scenarios/{name}.{suffix}.
func (s *Server) scenarioFormats() map[string]echo.HandlerFunc {
	return map[string]echo.HandlerFunc{
		"":    s.cached(revalidateCache, s.handleScenarioPage),
		"png": shareable(s.cached(revalidateCache, s.handleScenarioPNG)),
		"md":  s.cached(revalidateCache, s.handleScenarioMarkdown),
		"svg": shareable(s.cached(revalidateCache, s.handleScenarioSVG)),
	}
}

// handleScenarioMarkdown writes a built-in for a postmortem, as a saved
// run's .md does, with the built-in's page as its link.
func (s *Server) handleScenarioMarkdown(c echo.Context) error {
	b, err := s.builtin(c)
	if err != nil {
		return err
	}
	q := s.query(c)
	link := s.absURL(c, paths.Link(paths.ScenarioPath(b.Name), "", q.kept()))
	picture := s.absURL(c, paths.ScenarioPNGPath(b.Name)+"?size=full&d="+string(q.Diagram))
	var buf bytes.Buffer
	if err := export.MarkdownDiagram(&buf, b.Scenario, lab.Replay(b.Scenario), q.Policies, link, picture, q.Diagram); err != nil {
		return fmt.Errorf("write Markdown of scenario %s: %w", b.Name, err)
	}
	return c.Blob(http.StatusOK, markdownType, buf.Bytes())
}

// handleScenarioSVG writes a built-in's diagram under ?d=, as a run's .svg.
func (s *Server) handleScenarioSVG(c echo.Context) error {
	b, err := s.builtin(c)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := diagram.SVG(&buf, b.Scenario, lab.Replay(b.Scenario), s.query(c).Diagram); err != nil {
		return fmt.Errorf("draw diagram of scenario %s: %w", b.Name, err)
	}
	return c.Blob(http.StatusOK, svgType, buf.Bytes())
}

// handleScenarioPath splits the suffix off /scenarios/{name}.png as
// handleRunPath does for runs.
func (s *Server) handleScenarioPath(c echo.Context) error {
	name, suffix := splitSuffix(c.Param("name"))
	h, ok := s.scenarioFormats()[suffix]
	if !ok {
		return errNoScenario
	}
	c.SetParamValues(name)
	return h(c)
}

func (s *Server) handleRunEmbed(c echo.Context) error {
	sr, err := s.loadSaved(c)
	if err != nil {
		return err
	}
	page, err := s.embedPage(c, paths.RunPath(sr.Run.ID), sr.kind(), sr.report)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.Embed(page))
}

func (s *Server) handleScenarioEmbed(c echo.Context) error {
	b, err := s.builtin(c)
	if err != nil {
		return err
	}
	tr := lab.Replay(b.Scenario)
	report := func(ps []lab.Policy) *views.Report { return newReport(b.Scenario, tr, ps) }
	page, err := s.embedPage(c, paths.ScenarioPath(b.Name), "built-in scenario", report)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.Embed(page))
}

// embedPage is the embed of the page at path: the first policies of the
// query (embedPolicies), the page's diagram, and a link back to the page
// with the same choice.
func (s *Server) embedPage(c echo.Context, path, kind string, report func([]lab.Policy) *views.Report) (views.EmbedPage, error) {
	q := s.query(c).embed()
	theme, err := embedTheme(q.Theme)
	if err != nil {
		return views.EmbedPage{}, err
	}
	return views.EmbedPage{Report: report(q.Policies), Diagram: q.Diagram, Link: q.link(path), Kind: kind, Theme: theme}, nil
}

// embedTheme reads an embed's ?theme=: "light" or "dark" fixes its
// colours for a host page that has its own; without it the embed follows
// the reader's system (prefers-color-scheme), as the lab's pages do.
func embedTheme(q string) (string, error) {
	switch q {
	case "", views.ThemeLight, views.ThemeDark:
		return q, nil
	}
	return "", echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf(
		"theme=%q is not a theme of the embed: light or dark, or no theme to follow the reader's system.", q))
}

// share is the link preview of the page at path (with its query): the
// canonical address, the picture and the oEmbed endpoint on the base URL.
// Without a base URL only the words are given: an address taken from the
// request's Host header could be anyone's, and pages are cached.
func (s *Server) share(title, description, path, picture, alt string) *views.Share {
	sh := &views.Share{Title: title, Description: description, ImageAlt: alt}
	if base := s.publicBase(); base != "" && path != "" {
		sh.URL = base + path
		if picture != "" {
			sh.Image = base + picture
		}
		sh.OEmbed = base + paths.OEmbedPath(sh.URL)
	}
	return sh
}

// pictureOf is the card of the page at link, a path with its query.
func pictureOf(link string) string {
	path, query, _ := strings.Cut(link, "?")
	if query == "" {
		return paths.PicturePathOf(path)
	}
	return paths.PicturePathOf(path) + "?" + query
}

// handleIcon serves a favicon, an icon or the manifest: drawn at the first
// request, then kept, and kept a day by browsers.
func (s *Server) handleIcon(ctype string, draw func() []byte) echo.HandlerFunc {
	page := sync.OnceValue(func() *cachedPage { return newCachedPage("", ctype, exportCache, draw()) })
	return func(c echo.Context) error {
		return page().send(c)
	}
}

// publicBase is the configured base URL without a trailing slash, or "".
func (s *Server) publicBase() string {
	if s.baseURL == nil {
		return ""
	}
	return s.baseURL.String()
}

// exploreShare is the link preview of an exploration of a built-in or a
// saved run (?from=); a posted scenario's has no address and no picture.
func (s *Server) exploreShare(page views.ExplorePage) *views.Share {
	title := "Every ordering: " + page.Result.Scenario.Title
	line := views.ExploreLine(page.Result)
	if page.From == "" {
		return s.share(title, line, "", "", "")
	}
	alt := "Bars of the orderings of " + page.Result.Scenario.Title + " by each policy's worst class: " + line
	sh := s.share(title, line, paths.RouteExplore+"?"+url.Values{"from": {page.From}}.Encode(), paths.ExploreCardPath(page.From), alt)
	sh.OEmbed = "" // the oEmbed endpoint frames runs and scenarios, not explorations
	return sh
}
