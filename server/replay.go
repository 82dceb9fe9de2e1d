package server

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/views"
)

// handleReplayPage replays a scenario pasted into a form; nothing is saved.
func (s *Server) handleReplayPage(c echo.Context) error {
	source, sc, err := parseForm(c)
	if err != nil {
		return err
	}
	report := views.NewReport(sc, lab.Replay(sc), choosePolicies(c.Request().PostForm["p"]))
	page := views.ScenarioPage{Report: report, Source: source,
		Diagram: views.DiagramPolicy(report.Policies, c.Request().PostForm.Get("d"))}
	return render(c, http.StatusOK, views.Scenario(page))
}

// handleAPIReplay answers the trace, as the CLI's --json prints it; nothing is saved.
func (s *Server) handleAPIReplay(c echo.Context) error {
	sc, err := parseBody(c)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, lab.Replay(sc))
}

// parseBody parses the request body as a scenario. The body is read whole
// first, so an over-long one is a 413 rather than a JSON error.
func parseBody(c echo.Context) (*lab.Scenario, error) {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		var big *http.MaxBytesError
		if errors.As(err, &big) {
			return nil, err
		}
		// Truncated, badly chunked or too slow: the client's fault.
		return nil, unreadable(err)
	}
	return lab.Parse(bytes.NewReader(body))
}

// parseForm parses the form field "scenario". Its errors carry the text,
// so the error page can offer it back for fixing.
func parseForm(c echo.Context) (string, *lab.Scenario, error) {
	form, err := readForm(c)
	if err != nil {
		return "", nil, err
	}
	source := form.Get("scenario")
	sc, err := lab.Parse(strings.NewReader(source))
	if err != nil {
		return source, nil, &withSource{err: err, source: source}
	}
	return source, sc, nil
}

// readForm reads a posted form; one over the body limit is a 413.
func readForm(c echo.Context) (url.Values, error) {
	if err := c.Request().ParseForm(); err != nil {
		var big *http.MaxBytesError
		if errors.As(err, &big) {
			return nil, err
		}
		return nil, echo.NewHTTPError(http.StatusBadRequest, "The form could not be read.").SetInternal(err)
	}
	return c.Request().PostForm, nil
}
