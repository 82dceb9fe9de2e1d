package server

import (
	"bytes"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/views"
	"fencelab/views/paths"
)

var errNoFrom = echo.NewHTTPError(http.StatusBadRequest,
	"Say which scenario to explore: ?from=NAME for a built-in, or ?from=r/ID for a saved run.")

// handleExplorePage explores the scenario named by ?from= (a built-in's
// name, or r/{id} for a saved run) within the bounds of the query, and
// shows what every ordering gives.
func (s *Server) handleExplorePage(c echo.Context) error {
	from := c.QueryParam("from")
	o, err := s.resolveFrom(c.Request().Context(), from)
	if err != nil {
		return err
	}
	b, err := s.explorations.parseBounds(c.QueryParam)
	if err != nil {
		return err
	}
	return s.renderExplore(c, views.ExplorePage{From: from}, o.scenario, b)
}

// handleExploreCard draws the link-preview card of the exploration the
// explore page of ?from= shows, within the same bounds.
func (s *Server) handleExploreCard(c echo.Context) error {
	o, err := s.resolveFrom(c.Request().Context(), c.QueryParam("from"))
	if err != nil {
		return err
	}
	sc := o.scenario
	b, err := s.explorations.parseBounds(c.QueryParam)
	if err != nil {
		return err
	}
	x, err := s.explorations.run(c.Request().Context(), requesterOf(c), sc, b, nil)
	if err != nil {
		return busy(c, err)
	}
	res, err := s.exploreResult(sc, x, b)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := views.ExploreCardPNG(&buf, res); err != nil {
		return fmt.Errorf("draw the card of the exploration of %s: %w", sc.Title, err)
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=3600")
	return c.Blob(http.StatusOK, pngType, buf.Bytes())
}

// handleExploreForm explores the scenario of the form field "scenario",
// such as the editor's draft. With the field "save" it saves the scenario
// as a run instead and sends the browser to the page's own link.
func (s *Server) handleExploreForm(c echo.Context) error {
	source, sc, err := parseForm(c)
	if err != nil {
		return err
	}
	form := c.Request().PostForm
	if form.Get("save") != "" { // a save, within the client's budget and in its turn, as the other saves
		return s.withinBudget(func(c echo.Context) error {
			return s.inLane(c, s.work.laneOf(c.Request()), func(c echo.Context) error {
				run, err := s.save(c, sc)
				if err != nil {
					return err
				}
				return seeOther(c, paths.Link(paths.RouteExplore, paths.RunFrom(run.ID), nil))
			})
		})(c)
	}
	b, err := s.explorations.parseBounds(form.Get)
	if err != nil {
		return err
	}
	return s.renderExplore(c, views.ExplorePage{Source: source}, sc, b)
}

func (s *Server) renderExplore(c echo.Context, page views.ExplorePage, sc *lab.Scenario, b bounds) error {
	x, err := s.explorations.run(c.Request().Context(), requesterOf(c), sc, b, nil)
	if err != nil {
		return busy(c, err)
	}
	page.Result, err = s.exploreResult(sc, x, b)
	if err != nil {
		return err
	}
	page.Budget, page.Deadline = b.budget, b.deadline
	page.MaxBudget, page.MaxDeadline = maxExploreBudget, maxExploreDeadline
	page.Share = s.exploreShare(page)
	return render(c, http.StatusOK, views.Explore(page))
}

func (s *Server) exploreResult(sc *lab.Scenario, x *lab.Exploration, b bounds) (*views.ExploreResult, error) {
	reordered, err := x.Counterexamples(sc)
	if err != nil {
		return nil, fmt.Errorf("reorder the counterexamples: %w", err)
	}
	res, err := views.NewExploreResult(sc, x, b.budget, b.deadline, reordered)
	if err != nil {
		return nil, fmt.Errorf("show exploration: %w", err)
	}
	return res, nil
}

// handleAPIExplore answers the exploration JSON of the scenario in the
// body (or, instead, of ?from=), within the bounds of ?budget= and
// ?deadline=. With ?stream=1 it sends server-sent events: progress while
// it explores, then the result.
func (s *Server) handleAPIExplore(c echo.Context) error {
	b, err := s.explorations.parseBounds(c.QueryParam)
	if err != nil {
		return err
	}
	var sc *lab.Scenario
	if from := c.QueryParam("from"); from != "" {
		var o origin
		o, err = s.resolveFrom(c.Request().Context(), from)
		sc = o.scenario
	} else {
		sc, err = parseBody(c)
	}
	if err != nil {
		return err
	}
	if c.QueryParam("stream") == "1" {
		return s.streamExplore(c, sc, b)
	}
	x, err := s.explorations.run(c.Request().Context(), requesterOf(c), sc, b, nil)
	if err != nil {
		return busy(c, err)
	}
	return writeJSON(c, http.StatusOK, x)
}

// handleExploreEdit opens a counterexample in the editor: the editor opens
// copies of saved runs, so the scenario is saved first (the same scenario
// always gets the same run, so nothing piles up).
func (s *Server) handleExploreEdit(c echo.Context) error {
	return s.saveForm(c, func(id string, kept []lab.Policy) string {
		return paths.Link(paths.RouteEditor, paths.RunFrom(id), kept)
	})
}
