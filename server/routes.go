package server

import (
	"net/http"

	"fencelab/views"

	"github.com/labstack/echo/v4"
)

// routes registers every route of the lab, once. What can be read answers
// HEAD too; a saved run has no update or delete route.
func (s *Server) routes() {
	s.formats = s.runFormats()
	e := s.echo
	e.Use(s.logRequests, s.recoverPanics, securityHeaders, methods, s.sameOrigin, limitBody, compress)
	read := func(path string, h echo.HandlerFunc) { e.Match([]string{http.MethodGet, http.MethodHead}, path, h) }

	read("/", s.cached(revalidateCache, s.handleHome))
	read("/scenarios/:name", s.handleScenarioPath) // the page, and .png
	read("/scenarios/:name/present", s.handleScenarioPresent)
	read("/scenarios/:name/embed", framable(s.cached(revalidateCache, s.handleScenarioEmbed)))
	e.POST("/replay", s.handleReplayPage)
	e.POST("/runs", s.handleSaveRunForm)
	read("/r/:id", s.handleRunPath) // the page, and .md, .json, .svg, .png
	read("/r/:id/present", s.handleRunPresent)
	read("/r/:id/embed", framable(s.cached(exportCache, s.handleRunEmbed)))
	read("/oembed", s.handleOEmbed)
	read("/lab", s.handleEditor)
	e.POST("/lab", s.handleEditorForm)
	e.POST("/lab/preview", s.handleEditorPreview)
	e.POST("/lab/save", s.handleEditorSave)
	e.POST("/lab/explore", s.handleEditorExplore)
	e.POST("/rooms", s.handleCreateRoom)
	read("/rooms/:id", s.handleRoomSummary)
	e.GET("/rooms/:id/events", s.handlePresenterEvents)
	e.POST("/rooms/:id/step", s.handleRoomStep)
	e.POST("/rooms/:id/reveal", s.handleRoomReveal)
	read("/join", s.handleJoin)
	read("/join/:code", s.handleStudentPage)
	e.GET("/join/:code/events", s.handleStudentEvents)
	e.POST("/join/:code/answer", s.handleStudentAnswer)
	read("/explore", s.handleExplorePage)
	e.POST("/explore", s.handleExploreForm)
	e.POST("/explore/edit", s.handleExploreEdit)

	e.POST("/api/replay", s.handleAPIReplay)
	e.POST("/api/runs", s.handleAPISaveRun)
	e.POST("/api/probes", s.handleAPISaveProbe)
	e.POST("/api/explore", s.handleAPIExplore)
	read("/api/runs/:id", s.cached(immutableCache, s.handleAPIRun))
	read("/api/scenarios", s.handleAPIScenarios)
	read("/api/scenarios/:name", s.handleAPIScenario)

	read("/healthz", s.handleHealthz)
	read("/readyz", s.handleReadyz)

	read("/static/*", s.handleStatic)
	read("/favicon.ico", s.handleIcon("image/vnd.microsoft.icon", views.FaviconICO))
	read("/icon.svg", s.handleIcon("image/svg+xml", views.IconSVG))
	read("/icon-192.png", s.handleIcon(pngType, func() []byte { return views.IconPNG(192) }))
	read("/icon-512.png", s.handleIcon(pngType, func() []byte { return views.IconPNG(512) }))
	read("/apple-touch-icon.png", s.handleIcon(pngType, func() []byte { return views.IconPNG(180) }))
	read("/manifest.webmanifest", s.handleIcon("application/manifest+json", views.Manifest))
}
