package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/server/store"
	"fencelab/views"
	"fencelab/views/diagram"
	"fencelab/views/paths"
)

// handleScenarioPresent shows a built-in scenario one step at a time, for
// a classroom.
func (s *Server) handleScenarioPresent(c echo.Context) error {
	b, err := s.builtin(c)
	if err != nil {
		return err
	}
	return s.present(c, paths.ScenarioPath(b.Name), b.Scenario, lab.Replay(b.Scenario), nil)
}

// handleRunPresent shows a saved run one step at a time, with its trace as
// it was stored.
func (s *Server) handleRunPresent(c echo.Context) error {
	run, sc, tr, err := s.loadReplayedRun(c)
	if err != nil {
		return err
	}
	return s.present(c, paths.RunPath(run.ID), sc, tr, importedPicture(run))
}

// present renders the presentation of the page at path: the policies of
// ?p= in the table, ?d= in the diagram, and ?predict=1 for predict mode.
// A saved import's diagram has the logs' column (im; nil otherwise).
func (s *Server) present(c echo.Context, path string, sc *lab.Scenario, tr *lab.Trace, im *diagram.Imported) error {
	page := views.PresentPage{
		Report:       views.NewReport(sc, tr, choosePolicies(c.QueryParams()["p"])),
		Diagram:      diagramPolicy(c),
		Page:         path,
		Predict:      c.QueryParam("predict") == "1",
		CanStartRoom: s.rooms != nil,
	}
	page.Report.Imported = im
	if id := c.QueryParam("room"); id != "" && s.rooms != nil {
		if err := s.presentRoom(c, &page, sc, tr, id); err != nil {
			return err
		}
	}
	return render(c, http.StatusOK, views.Present(page))
}

// presentRoom turns the presentation into the live room id's: its
// policies, predict mode, and the code and QR code students join with.
func (s *Server) presentRoom(c echo.Context, page *views.PresentPage, sc *lab.Scenario, tr *lab.Trace, id string) error {
	r, err := s.rooms.Room(c.Request().Context(), id)
	if err == nil && r.Page != page.Page {
		return store.ErrNoRoom
	}
	if err != nil {
		return err
	}
	policies := choosePolicies(r.Policies)
	page.Report = views.NewReport(sc, tr, policies)
	page.Diagram = views.DiagramPolicy(policies, r.Diagram)
	page.Predict = true
	join := s.absURL(c, paths.JoinPath(r.Code))
	svg, err := qrSVG(join)
	if err != nil {
		return err
	}
	page.Room = &views.PresentRoom{ID: r.ID, Code: r.Code, JoinURL: join, JoinHost: s.absURL(c, ""),
		QR: svg, SummaryURL: paths.RoomPath(r.ID), ShowNames: r.ShowNames, Countdown: r.Countdown}
	return nil
}
