package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"

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
	q := queryOf(c.Request().PostForm)
	page := views.ScenarioPage{Report: newReport(sc, lab.Replay(sc), q.Policies), Source: source, Diagram: q.Diagram}
	return render(c, http.StatusOK, views.Scenario(page))
}

// handleAPIReplay answers the trace, as the CLI's --json prints it; nothing
// is saved. A replay depends on nothing but the scenario, so the answer to
// a body seen before (a class posting the same built-in) is sent again
// from memory, gzipped once. The body itself is the key: looking it up
// costs less than hashing it, and no two scenarios can share an answer.
func (s *Server) handleAPIReplay(c echo.Context) error {
	buf, err := readBody(c)
	if err != nil {
		return err
	}
	defer releaseBody(buf)
	body := buf.Bytes()
	if p := s.replays.getBytes(body); p != nil {
		return p.send(c)
	}
	sc, err := lab.Parse(bytes.NewReader(body))
	if err != nil {
		return err
	}
	trace := append(lab.Replay(sc).AppendJSON(nil), '\n')
	sum := sha256.Sum256(trace)
	p := newLazyPage(string(body), jsonType, "no-store", `"`+base64.RawURLEncoding.EncodeToString(sum[:18])+`"`, trace)
	s.replays.put(p)
	return p.send(c)
}

// parseBody parses the request body as a scenario.
func parseBody(c echo.Context) (*lab.Scenario, error) {
	buf, err := readBody(c)
	if err != nil {
		return nil, err
	}
	defer releaseBody(buf)
	return lab.Parse(bytes.NewReader(buf.Bytes()))
}

// bodyBuffers are reused to read request bodies into: a scenario is a few
// KB, and io.ReadAll grew a new buffer from 512 bytes for each one.
var bodyBuffers = sync.Pool{New: func() any { return bytes.NewBuffer(make([]byte, 0, 8<<10)) }}

// readBody reads the request body whole, so an over-long one is a 413
// rather than a JSON error. The buffer is the caller's until it hands it
// to releaseBody.
func readBody(c echo.Context) (*bytes.Buffer, error) {
	buf := bodyBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	if _, err := buf.ReadFrom(c.Request().Body); err != nil {
		releaseBody(buf)
		var big *http.MaxBytesError
		if errors.As(err, &big) {
			return nil, err
		}
		// Truncated, badly chunked or too slow: the client's fault.
		return nil, unreadable(err)
	}
	return buf, nil
}

// releaseBody gives a body's buffer back for another request; bodies are
// bounded (maxBody), so every buffer can be kept.
func releaseBody(buf *bytes.Buffer) {
	bodyBuffers.Put(buf)
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
