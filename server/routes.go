package server

import (
	"net/http"

	"fencelab/views"
	"fencelab/views/paths"

	"github.com/labstack/echo/v4"
)

// routes registers every route of the lab, once, by its pattern in
// views/paths/routes.go; a new route that takes parameters or a query
// needs its builder in views/paths/paths.go too (TestRoutesHaveBuilders
// fails without one). What can be read answers
// HEAD too; a saved run has no update or delete route.
func (s *Server) routes() {
	s.formats = s.runFormats()
	e := s.echo
	e.Use(s.logRequests, s.recoverPanics, s.securityHeaders, methods, s.sameOrigin, limitBody, compress)
	read := func(path string, h echo.HandlerFunc) { e.Match([]string{http.MethodGet, http.MethodHead}, path, h) }

	read(paths.RouteHome, s.cached(revalidateCache, s.handleHome))
	read(paths.RouteScenario, s.handleScenarioPath) // the page, and .png
	read(paths.RouteScenarioPresent, s.rendering(s.handleScenarioPresent))
	read(paths.RouteScenarioEmbed, framable(s.cached(revalidateCache, s.handleScenarioEmbed)))
	e.POST(paths.RouteReplay, s.inTurn(s.handleReplayPage))
	e.POST(paths.RouteRuns, s.withinBudget(s.inTurn(s.handleSaveRunForm)))
	read(paths.RouteRun, s.shown(true, s.handleRunPath)) // the page, and .md, .json, .svg, .png
	read(paths.RouteRunPresent, s.shown(false, s.rendering(s.handleRunPresent)))
	read(paths.RouteRunEmbed, framable(s.shown(false, s.cached(exportCache, s.handleRunEmbed))))
	read(paths.RouteOEmbed, s.rendering(s.handleOEmbed))
	read(paths.RouteEditor, s.rendering(s.handleEditor))
	e.POST(paths.RouteEditor, s.inTurn(s.handleEditorForm))
	e.POST(paths.RouteEditorPreview, s.inTurn(s.handleEditorPreview))
	e.POST(paths.RouteEditorSave, s.withinBudget(s.inTurn(s.handleEditorSave)))
	e.POST(paths.RouteEditorExplore, s.withinBudget(s.inTurn(s.handleEditorExplore)))
	e.POST(paths.RouteRooms, s.handleCreateRoom)
	read(paths.RouteRoom, s.handleRoomSummary)
	e.GET(paths.RouteRoomEvents, s.handlePresenterEvents)
	e.POST(paths.RouteRoomStep, s.handleRoomStep)
	e.POST(paths.RouteRoomReveal, s.handleRoomReveal)
	e.POST(paths.RouteRoomEnd, s.handleRoomEnd)
	e.POST(paths.RouteRoomOptions, s.handleRoomOptions)
	e.POST(paths.RouteRoomHandover, s.handleRoomHandover)
	read(paths.RouteRoomTake, s.handleRoomTakePage)
	e.POST(paths.RouteRoomTake, s.handleRoomTake)
	read(paths.RouteRoomCSV, s.handleRoomCSV)
	read(paths.RouteJoinForm, s.handleJoin)
	read(paths.RouteJoin, s.handleStudentPage)
	e.GET(paths.RouteJoinEvents, s.handleStudentEvents)
	e.POST(paths.RouteJoinAnswer, s.handleStudentAnswer)
	read(paths.RouteExplore, s.handleExplorePage)
	e.POST(paths.RouteExplore, s.handleExploreForm)
	e.POST(paths.RouteExploreEdit, s.withinBudget(s.inTurn(s.handleExploreEdit)))
	read(paths.RouteImport, s.handleImportPage)
	e.POST(paths.RouteImport, s.importTurn(s.handleImportForm))
	e.POST(paths.RouteImportPreview, s.importTurn(s.handleImportPreview))
	read(paths.RouteExploreCard, shareable(s.handleExploreCard)) // the explorations' cache keeps it, by ?from= and bounds
	read(paths.RouteCompare, s.inTurn(s.handleCompare))
	read(paths.RouteCompareMarkdown, s.inTurn(s.handleCompareMarkdown))

	e.POST(paths.RouteAPIReplay, s.inTurn(s.handleAPIReplay))
	e.POST(paths.RouteAPIRuns, s.withinBudget(s.inTurn(s.handleAPISaveRun)))
	e.POST(paths.RouteAPIProbes, s.withinBudget(s.inTurn(s.handleAPISaveProbe)))
	e.POST(paths.RouteAPIImports, s.withinBudget(s.handleAPISaveImport))
	e.POST(paths.RouteAPIExplore, s.handleAPIExplore)
	read(paths.RouteAPIRun, s.shown(false, s.cached(immutableCache, s.handleAPIRun)))
	read(paths.RouteAPIScenarios, s.handleAPIScenarios)
	read(paths.RouteAPIScenario, s.handleAPIScenario)

	read(paths.RouteHealthz, s.handleHealthz)
	read(paths.RouteReadyz, s.handleReadyz)

	read(paths.RouteStatic, s.handleStatic)
	read(paths.RouteFavicon, s.handleIcon("image/vnd.microsoft.icon", views.FaviconICO))
	read(paths.RouteIconSVG, s.handleIcon("image/svg+xml", views.IconSVG))
	read(paths.RouteIcon192, s.handleIcon(pngType, func() []byte { return views.IconPNG(192) }))
	read(paths.RouteIcon512, s.handleIcon(pngType, func() []byte { return views.IconPNG(512) }))
	read(paths.RouteAppleTouchIcon, s.handleIcon(pngType, func() []byte { return views.IconPNG(180) }))
	read(paths.RouteManifest, s.handleIcon("application/manifest+json", views.Manifest))
}

// Route is one route the server answers: a method and a pattern of
// views/paths/routes.go.
type Route struct{ Method, Path string }

// Routes lists every route the server registered, so that what checks the
// links (that each route has its builder in views/paths) reads the
// server's own table rather than a copy of it.
func (s *Server) Routes() []Route {
	var out []Route
	for _, r := range s.echo.Routes() {
		out = append(out, Route{r.Method, r.Path})
	}
	return out
}
