package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"fencelab/static"
)

// routes registers every route of the lab, once. What can be read answers
// HEAD too; a saved run has no update or delete route.
func (s *Server) routes() {
	e := s.echo
	e.Use(s.logRequests, s.recoverPanics, securityHeaders, limitBody)
	read := func(path string, h echo.HandlerFunc) { e.Match([]string{http.MethodGet, http.MethodHead}, path, h) }

	read("/", s.handleHome)
	read("/scenarios/:name", s.handleScenarioPage)
	e.POST("/replay", s.handleReplayPage)
	e.POST("/runs", s.handleSaveRunForm)
	read("/r/:id", s.handleRunPage)

	e.POST("/api/replay", s.handleAPIReplay)
	e.POST("/api/runs", s.handleAPISaveRun)
	read("/api/runs/:id", s.handleAPIRun)
	read("/api/scenarios", s.handleAPIScenarios)
	read("/api/scenarios/:name", s.handleAPIScenario)

	read("/static/*", echo.StaticDirectoryHandler(static.FS, true))
}
