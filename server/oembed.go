package server

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/views"
	"fencelab/views/diagram"
	"fencelab/views/paths"
)

// oEmbed (oembed.com): a wiki or a blog that is given the link of a run or
// a built-in scenario asks /oembed?url=LINK and gets the HTML of an
// iframe of its embed page, and the card as a thumbnail.

// errOEmbedFormat answers a format other than JSON: 501, as the
// specification asks.
const errOEmbedFormat = "This oEmbed endpoint answers in JSON only (format=json)."

var errOEmbedURL = echo.NewHTTPError(http.StatusNotFound, "The url is not the link of a saved run or a built-in scenario of this lab.")

// oembedJSON is the "rich" answer of the oEmbed specification, 2.3.4.
type oembedJSON struct {
	Version         string `json:"version"`
	Type            string `json:"type"`
	Title           string `json:"title"`
	ProviderName    string `json:"provider_name"`
	ProviderURL     string `json:"provider_url"`
	CacheAge        int    `json:"cache_age"`
	HTML            string `json:"html"`
	Width           int    `json:"width"`
	Height          int    `json:"height"`
	ThumbnailURL    string `json:"thumbnail_url"`
	ThumbnailWidth  int    `json:"thumbnail_width"`
	ThumbnailHeight int    `json:"thumbnail_height"`
}

// embedWidth is the frame's width unless the consumer asks for less.
const embedWidth = 900

// handleOEmbed answers for the link in ?url=. With a base URL the link
// must be on it; without one, the frame is built on the link's own origin,
// which is the consumer's to choose, and the answer is not cached.
func (s *Server) handleOEmbed(c echo.Context) error {
	if f := c.QueryParam("format"); f != "" && f != "json" {
		return writeJSON(c, http.StatusNotImplemented, errorJSON{Error: errOEmbedFormat, Errors: nonNil(nil)})
	}
	link, err := url.Parse(c.QueryParam("url"))
	if err != nil || (link.Scheme != "http" && link.Scheme != "https") || link.Host == "" {
		return errOEmbedURL
	}
	base := s.publicBase()
	if base == "" {
		base = link.Scheme + "://" + link.Host
	}
	path, ok := strings.CutPrefix(link.Scheme+"://"+link.Host+link.Path, base)
	if !ok {
		return errOEmbedURL
	}
	title, kind, report, err := s.embedTarget(c, path)
	if err != nil {
		return err
	}
	q := queryOf(link.Query()).embed()
	width := embedWidth
	if mw, err := strconv.Atoi(c.QueryParam("maxwidth")); err == nil && mw > 0 {
		width = min(width, mw)
	}
	if width < views.EmbedMinWidth {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf(
			"The embed needs a frame at least %d pixels wide; maxwidth=%d is narrower.", views.EmbedMinWidth, width))
	}
	height := views.EmbedHeight(report(q.Policies), q.Diagram, kind, width)
	if mh, err := strconv.Atoi(c.QueryParam("maxheight")); err == nil && mh > 0 {
		height = min(height, mh)
	}
	theme, err := embedTheme(c.QueryParam("theme"))
	if err != nil {
		return err
	}
	src := base + themed(q.link(paths.EmbedPathOf(path)), theme)
	c.Response().Header().Set("Cache-Control", "public, max-age=3600")
	return writeJSON(c, http.StatusOK, oembedJSON{
		Version: "1.0", Type: "rich", Title: title, ProviderName: "fencelab", ProviderURL: base + "/",
		CacheAge: 86400, Width: width, Height: height,
		HTML:         embedHTML(src, title+" ("+kind+")", width, height),
		ThumbnailURL: base + pictureOf(q.link(path)), ThumbnailWidth: diagram.CardWidth, ThumbnailHeight: diagram.CardHeight,
	})
}

// embedTarget loads what path names, a RunPath or a ScenarioPath: its
// title, what an embed calls it, and its report under given policies.
func (s *Server) embedTarget(c echo.Context, path string) (string, string, func([]lab.Policy) *views.Report, error) {
	if id, ok := paths.CutRunPath(path); ok {
		run, err := s.runByID(c.Request().Context(), id)
		if err != nil {
			return "", "", nil, err
		}
		sr, err := decodeSaved(run)
		if err != nil {
			return "", "", nil, err
		}
		return sr.Scenario.Title, sr.kind(), sr.report, nil
	}
	if name, ok := paths.CutScenarioPath(path); ok {
		if b, found := s.library.Get(name); found {
			tr := lab.Replay(b.Scenario)
			return b.Scenario.Title, "built-in scenario", func(ps []lab.Policy) *views.Report { return newReport(b.Scenario, tr, ps) }, nil
		}
		return "", "", nil, errNoScenario
	}
	return "", "", nil, errOEmbedURL
}

// themed is the embed page at link with ?theme= added, when one is asked.
func themed(link, theme string) string {
	if theme == "" {
		return link
	}
	if strings.Contains(link, "?") {
		return link + "&theme=" + theme
	}
	return link + "?theme=" + theme
}

// htmlAttr escapes a value for a double-quoted HTML attribute.
func htmlAttr(s string) string {
	return strings.NewReplacer("&", "&amp;", `"`, "&quot;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// embedHTML is the iframe of an embed page at src, for another site.
func embedHTML(src, title string, width, height int) string {
	return `<iframe src="` + htmlAttr(src) + `" width="` + strconv.Itoa(width) + `" height="` + strconv.Itoa(height) +
		`" title="` + htmlAttr(title) + `" loading="lazy" frameborder="0"></iframe>`
}
