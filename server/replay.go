package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
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

// handleAPIReplay answers the trace, as the CLI's --json prints it; nothing
// is saved. A replay depends on nothing but the scenario, so the answer to
// a body seen before (a class posting the same built-in) is sent again
// from memory, gzipped once.
func (s *Server) handleAPIReplay(c echo.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	key := string(sum[:])
	if p := s.replays.get(key); p != nil {
		return s.sendReplay(c, p)
	}
	sc, err := lab.Parse(bytes.NewReader(body))
	if err != nil {
		return err
	}
	trace := append(lab.Replay(sc).AppendJSON(nil), '\n')
	sum = sha256.Sum256(trace)
	p := &cachedPage{key: key, ctype: jsonType, control: "no-store", lazy: true, body: trace,
		etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`}
	s.replays.put(p)
	return s.sendReplay(c, p)
}

// sendReplay sends a kept replay, gzipped for a client that takes gzip.
func (s *Server) sendReplay(c echo.Context, p *cachedPage) error {
	var gz []byte
	if acceptsGzip(c.Request()) {
		gz = p.gzipped()
	}
	return sendBytes(c, p.ctype, p.control, p.etag, p.body, gz)
}

// parseBody parses the request body as a scenario.
func parseBody(c echo.Context) (*lab.Scenario, error) {
	body, err := readBody(c)
	if err != nil {
		return nil, err
	}
	return lab.Parse(bytes.NewReader(body))
}

// readBody reads the request body whole, so an over-long one is a 413
// rather than a JSON error.
func readBody(c echo.Context) ([]byte, error) {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		var big *http.MaxBytesError
		if errors.As(err, &big) {
			return nil, err
		}
		// Truncated, badly chunked or too slow: the client's fault.
		return nil, unreadable(err)
	}
	return body, nil
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
