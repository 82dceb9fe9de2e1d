package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/views"
	"fencelab/views/paths"
)

func (s *Server) handleScenarioPage(c echo.Context) error {
	b, err := s.builtin(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.Scenario(s.scenarioPage(c, b)))
}

// scenarioPage is the page of a built-in: one replay, its table and
// diagram under the query's policies, and its link preview.
func (s *Server) scenarioPage(c echo.Context, b lab.Builtin) views.ScenarioPage {
	q := s.query(c)
	tr := lab.Replay(b.Scenario)
	page := views.ScenarioPage{Report: newReport(b.Scenario, tr, q.Policies), Name: b.Name, Source: string(b.Source), Diagram: q.Diagram}
	page.Report.Unknown, page.Report.UnknownMore = q.Unknown, q.UnknownMore
	lesson := b.Lesson
	if lesson == "" {
		lesson = views.VerdictsLine(tr, q.Policies)
	}
	link := q.link(paths.ScenarioPath(b.Name))
	page.Share = s.share(b.Scenario.Title, lesson, link, pictureOf(link), s.cardAlt(c, b.Scenario, tr))
	return page
}

// scenarioJSON is one entry of GET /api/scenarios.
type scenarioJSON struct {
	Name   string `json:"name"`
	Title  string `json:"title"`
	Lesson string `json:"lesson"`
}

func (s *Server) handleAPIScenarios(c echo.Context) error {
	list := make([]scenarioJSON, 0, len(s.library.List))
	for _, b := range s.library.List {
		list = append(list, scenarioJSON{Name: b.Name, Title: b.Scenario.Title, Lesson: b.Lesson})
	}
	return writeJSON(c, http.StatusOK, list)
}

// handleAPIScenario serves the built-in's file as it is embedded.
func (s *Server) handleAPIScenario(c echo.Context) error {
	b, err := s.builtin(c)
	if err != nil {
		return err
	}
	return c.Blob(http.StatusOK, jsonType, b.Source)
}

func (s *Server) builtin(c echo.Context) (lab.Builtin, error) {
	b, ok := s.library.Get(c.Param("name"))
	if !ok {
		return lab.Builtin{}, errNoScenario
	}
	return b, nil
}
