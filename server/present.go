package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/views"
)

// handleScenarioPresent shows a built-in scenario one step at a time, for
// a classroom.
func (s *Server) handleScenarioPresent(c echo.Context) error {
	b, err := s.builtin(c)
	if err != nil {
		return err
	}
	return s.present(c, "/scenarios/"+b.Name, b.Scenario, lab.Replay(b.Scenario))
}

// handleRunPresent shows a saved run one step at a time, with its trace as
// it was stored.
func (s *Server) handleRunPresent(c echo.Context) error {
	run, sc, tr, err := s.loadReplayedRun(c)
	if err != nil {
		return err
	}
	return s.present(c, "/r/"+run.ID, sc, tr)
}

// present renders the presentation of the page at path: the policies of
// ?p= in the table, ?d= in the diagram, and ?predict=1 for predict mode.
func (s *Server) present(c echo.Context, path string, sc *lab.Scenario, tr *lab.Trace) error {
	page := views.PresentPage{
		Report:  views.NewReport(sc, tr, choosePolicies(c.QueryParams()["p"])),
		Diagram: diagramPolicy(c),
		Page:    path,
		Predict: c.QueryParam("predict") == "1",
	}
	return render(c, http.StatusOK, views.Present(page))
}
