package server

import (
	"compress/gzip"
	"strings"

	"fencelab/views/paths"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// exportCache is the Cache-Control of a saved run's exports: the run never
// changes, but the way an export is drawn may change with an upgrade, so a
// day's keeping and then the ETag.
const exportCache = "public, max-age=86400"

// minGzip is the smallest body worth compressing: below it the gzip
// header and the CPU cost more than the bytes saved.
const minGzip = 1024

// compress gzips the answers that are made per request (the editor, the
// explorer, the API) for clients that take gzip. Static files and cached
// pages carry their gzipped form already, and a stream of server-sent
// events must reach the client as it is written.
var compress = middleware.GzipWithConfig(middleware.GzipConfig{
	Level:     gzip.DefaultCompression,
	MinLength: minGzip,
	Skipper: func(c echo.Context) bool {
		return selfEncoded(c.Path()) ||
			strings.Contains(c.Request().Header.Get("Accept"), "text/event-stream") ||
			c.QueryParam("stream") != ""
	},
})

// selfEncoded reports whether the route at path sends its own gzipped form.
func selfEncoded(path string) bool {
	switch path {
	case paths.RouteHome, paths.RouteScenario, paths.RouteRun, paths.RouteAPIRun, paths.RouteStatic,
		paths.RouteRunEmbed, paths.RouteScenarioEmbed, paths.RouteFavicon, paths.RouteIconSVG, paths.RouteIcon192,
		paths.RouteIcon512, paths.RouteAppleTouchIcon, paths.RouteManifest, paths.RouteAPIReplay:
		return true
	}
	return false
}
