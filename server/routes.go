package server

import (
	"net/http"

	"fencelab/views"

	"github.com/labstack/echo/v4"
)

// routes registers every route of the lab, once, by its pattern in
// views/routes.go; a new route needs its builder in views/paths.go too
// (TestRoutesHaveBuilders fails without one). What can be read answers
// HEAD too; a saved run has no update or delete route.
func (s *Server) routes() {
	s.formats = s.runFormats()
	e := s.echo
	e.Use(s.logRequests, s.recoverPanics, s.securityHeaders, methods, s.sameOrigin, limitBody, compress)
	read := func(path string, h echo.HandlerFunc) { e.Match([]string{http.MethodGet, http.MethodHead}, path, h) }

	read(views.RouteHome, s.cached(revalidateCache, s.handleHome))
	read(views.RouteScenario, s.handleScenarioPath) // the page, and .png
	read(views.RouteScenarioPresent, s.handleScenarioPresent)
	read(views.RouteScenarioEmbed, framable(s.cached(revalidateCache, s.handleScenarioEmbed)))
	e.POST(views.RouteReplay, s.handleReplayPage)
	e.POST(views.RouteRuns, s.withinBudget(s.handleSaveRunForm))
	read(views.RouteRun, s.shown(true, s.handleRunPath)) // the page, and .md, .json, .svg, .png
	read(views.RouteRunPresent, s.shown(false, s.handleRunPresent))
	read(views.RouteRunEmbed, framable(s.shown(false, s.cached(exportCache, s.handleRunEmbed))))
	read(views.RouteOEmbed, s.handleOEmbed)
	read(views.RouteEditor, s.handleEditor)
	e.POST(views.RouteEditor, s.handleEditorForm)
	e.POST(views.RouteEditorPreview, s.handleEditorPreview)
	e.POST(views.RouteEditorSave, s.withinBudget(s.handleEditorSave))
	e.POST(views.RouteEditorExplore, s.handleEditorExplore)
	e.POST(views.RouteRooms, s.handleCreateRoom)
	read(views.RouteRoom, s.handleRoomSummary)
	e.GET(views.RouteRoomEvents, s.handlePresenterEvents)
	e.POST(views.RouteRoomStep, s.handleRoomStep)
	e.POST(views.RouteRoomReveal, s.handleRoomReveal)
	e.POST(views.RouteRoomEnd, s.handleRoomEnd)
	e.POST(views.RouteRoomOptions, s.handleRoomOptions)
	e.POST(views.RouteRoomHandover, s.handleRoomHandover)
	read(views.RouteRoomTake, s.handleRoomTakePage)
	e.POST(views.RouteRoomTake, s.handleRoomTake)
	read(views.RouteRoomCSV, s.handleRoomCSV)
	read(views.RouteJoinForm, s.handleJoin)
	read(views.RouteJoin, s.handleStudentPage)
	e.GET(views.RouteJoinEvents, s.handleStudentEvents)
	e.POST(views.RouteJoinAnswer, s.handleStudentAnswer)
	read(views.RouteExplore, s.handleExplorePage)
	e.POST(views.RouteExplore, s.handleExploreForm)
	e.POST(views.RouteExploreEdit, s.handleExploreEdit)
	read(views.RouteImport, s.handleImportPage)
	e.POST(views.RouteImport, s.importTurn(s.handleImportForm))
	e.POST(views.RouteImportPreview, s.importTurn(s.handleImportPreview))
	read(views.RouteExploreCard, shareable(s.handleExploreCard)) // the explorations' cache keeps it, by ?from= and bounds
	read(views.RouteCompare, s.handleCompare)
	read(views.RouteCompareMarkdown, s.handleCompareMarkdown)

	e.POST(views.RouteAPIReplay, s.handleAPIReplay)
	e.POST(views.RouteAPIRuns, s.withinBudget(s.handleAPISaveRun))
	e.POST(views.RouteAPIProbes, s.withinBudget(s.handleAPISaveProbe))
	e.POST(views.RouteAPIImports, s.withinBudget(s.handleAPISaveImport))
	e.POST(views.RouteAPIExplore, s.handleAPIExplore)
	read(views.RouteAPIRun, s.shown(false, s.cached(immutableCache, s.handleAPIRun)))
	read(views.RouteAPIScenarios, s.handleAPIScenarios)
	read(views.RouteAPIScenario, s.handleAPIScenario)

	read(views.RouteHealthz, s.handleHealthz)
	read(views.RouteReadyz, s.handleReadyz)

	read(views.RouteStatic, s.handleStatic)
	read(views.RouteFavicon, s.handleIcon("image/vnd.microsoft.icon", views.FaviconICO))
	read(views.RouteIconSVG, s.handleIcon("image/svg+xml", views.IconSVG))
	read(views.RouteIcon192, s.handleIcon(pngType, func() []byte { return views.IconPNG(192) }))
	read(views.RouteIcon512, s.handleIcon(pngType, func() []byte { return views.IconPNG(512) }))
	read(views.RouteAppleTouchIcon, s.handleIcon(pngType, func() []byte { return views.IconPNG(180) }))
	read(views.RouteManifest, s.handleIcon("application/manifest+json", views.Manifest))
}

// Route is one route the server answers: a method and a pattern of
// views/routes.go.
type Route struct{ Method, Path string }

// Routes lists every route the server registered, so that what checks the
// links (that each route has its builder in views/paths.go) reads the
// server's own table rather than a copy of it.
func (s *Server) Routes() []Route {
	var out []Route
	for _, r := range s.echo.Routes() {
		out = append(out, Route{r.Method, r.Path})
	}
	return out
}
