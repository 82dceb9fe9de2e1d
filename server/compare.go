package server

import (
	"bytes"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/server/store"
	"fencelab/views"
	"fencelab/views/export"
	"fencelab/views/paths"
)

// handleCompare sets two runs or built-ins side by side (?a=, ?b=, each a
// built-in's name or r/ID; ?p= the policies, as on a run's page). Without
// both it is the form; one that names nothing is the form again with a
// sentence saying which, and a 404.
func (s *Server) handleCompare(c echo.Context) error {
	a, b := strings.TrimSpace(c.QueryParam("a")), strings.TrimSpace(c.QueryParam("b"))
	page := views.ComparePage{A: a, B: b}
	if a == "" && b == "" {
		return render(c, http.StatusOK, views.Compare(page))
	}
	cmp, status, err := s.comparison(c, a, b)
	if err != nil && status == 0 {
		return err
	}
	if err != nil {
		page.Error = err.Error()
		return render(c, status, views.Compare(page))
	}
	page.C = cmp
	return render(c, http.StatusOK, views.Compare(page))
}

// handleCompareMarkdown is the comparison for a postmortem.
func (s *Server) handleCompareMarkdown(c echo.Context) error {
	cmp, status, err := s.comparison(c, strings.TrimSpace(c.QueryParam("a")), strings.TrimSpace(c.QueryParam("b")))
	if err != nil && status == 0 {
		return err
	}
	if err != nil {
		return echo.NewHTTPError(status, err.Error())
	}
	var buf bytes.Buffer
	if err := export.CompareMarkdown(&buf, cmp); err != nil {
		return err
	}
	return c.Blob(http.StatusOK, markdownType, buf.Bytes())
}

// comparison loads both sides, or says which one names nothing (404) or
// was taken down (410); status 0 with the store's own error (a database
// that cannot be reached).
func (s *Server) comparison(c echo.Context, a, b string) (*export.Comparison, int, error) {
	if a == "" || b == "" {
		//lint:ignore ST1005 the sentence is the page's and the API's answer, as written
		return nil, http.StatusBadRequest, errors.New("Name two runs to compare: A and B, each a built-in's " +
			"name (paused-worker) or a saved run (r/ID).")
	}
	side := func(label, from string) (export.Side, int, error) {
		o, err := s.resolveFrom(c.Request().Context(), from)
		if err != nil {
			var he *echo.HTTPError
			if errors.As(err, &he) && he.Code == http.StatusGone || store.CodeOf(err) == store.Gone {
				return export.Side{}, http.StatusGone, errors.New(label + " (" + from + ") was taken down.")
			}
			if code := store.CodeOf(err); code != 0 && code != store.NotFound {
				return export.Side{}, 0, err // the store's own trouble, answered as such
			}
			return export.Side{}, http.StatusNotFound, errors.New(
				label + " (" + from + ") names no built-in scenario and no saved run: " + strings.TrimSuffix(err.Error(), "."),
			)
		}
		sc := o.scenario
		return export.Side{
			Name:     from,
			Title:    sc.Title,
			Link:     s.absURL(c, paths.FromPage(from)),
			Scenario: sc,
			Trace:    lab.Replay(sc),
		}, 0, nil
	}
	sa, status, err := side("A", a)
	if err != nil {
		return nil, status, err
	}
	sb, status, err := side("B", b)
	if err != nil {
		return nil, status, err
	}
	return export.Compare(sa, sb, s.query(c).Policies), 0, nil
}
