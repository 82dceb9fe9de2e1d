package server

import (
	"net/http"
	"net/url"

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
	sr, err := s.loadSaved(c)
	if err != nil {
		return err
	}
	var im *diagram.Imported
	if sr.Imported != nil {
		im = importedPicture(sr.Imported)
	}
	return s.present(c, paths.RunPath(sr.Run.ID), sr.Scenario, sr.Trace, im)
}

// present renders the presentation of the page at path: the policies of
// ?p= in the table, ?d= in the diagram, and ?predict=1 for predict mode;
// in a live room (?room=), the room's policies and predict mode, with
// the code and QR code students join with. A saved import's diagram has
// the logs' column (im; nil otherwise).
func (s *Server) present(c echo.Context, path string, sc *lab.Scenario, tr *lab.Trace, im *diagram.Imported) error {
	q := s.query(c)
	page := views.PresentPage{Page: path, Predict: c.QueryParam("predict") == "1", CanStartRoom: s.rooms != nil}
	if id := c.QueryParam("room"); id != "" && s.rooms != nil {
		r, err := s.rooms.Room(c.Request().Context(), id)
		if err == nil && r.Page != path {
			return store.ErrNoRoom
		}
		if err != nil {
			return err
		}
		if page.Room, err = s.presentRoom(c, r); err != nil {
			return err
		}
		q, page.Predict = roomQuery(r), true
	}
	page.Report, page.Diagram = newReport(sc, tr, q.Policies), q.Diagram
	page.Report.Imported = im
	return render(c, http.StatusOK, views.Present(page))
}

// roomQuery is the choice a room was opened with: its policies and its
// diagram's, as a page query.
func roomQuery(r store.Room) pageQuery {
	return queryOf(url.Values{"p": r.Policies, "d": {r.Diagram}})
}

// presentRoom is what the presentation of room r shows besides its steps:
// the code and QR code students join with.
func (s *Server) presentRoom(c echo.Context, r store.Room) (*views.PresentRoom, error) {
	join := s.absURL(c, paths.JoinPath(r.Code))
	svg, err := qrSVG(join)
	if err != nil {
		return nil, err
	}
	return &views.PresentRoom{ID: r.ID, Code: r.Code, JoinURL: join, JoinHost: s.absURL(c, ""),
		QR: svg, SummaryURL: paths.RoomPath(r.ID), ShowNames: r.ShowNames, Countdown: r.Countdown}, nil
}
