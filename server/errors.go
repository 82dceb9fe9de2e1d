package server

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/server/store"
	"fencelab/views"
	"fencelab/views/paths"
)

var (
	errTooLarge   = echo.NewHTTPError(http.StatusRequestEntityTooLarge, "The request body is over the limit of 64 KiB.")
	errNoScenario = echo.NewHTTPError(http.StatusNotFound, "There is no built-in scenario of this name.")
)

// unreadable answers a body that could not be read: cut short, badly
// chunked or too slow. It is the client's doing: a 400, not a 500.
func unreadable(err error) error {
	return echo.NewHTTPError(http.StatusBadRequest,
		"The request body could not be read: it was cut short, badly encoded or too slow.").SetInternal(err)
}

// withSource keeps the scenario text a form sent, so that the error page
// can offer it back for fixing.
type withSource struct {
	err    error
	source string
}

func (e *withSource) Error() string { return e.err.Error() }
func (e *withSource) Unwrap() error { return e.err }

// problem is an error as the client sees it.
type problem struct {
	status  int
	title   string
	message string
	errors  []lab.FieldError
}

// handleError is the one error handler: validation 422, malformed JSON 400,
// an over-long body 413, *echo.HTTPError its own code, a store error the
// status storeProblems gives its code, the rest 500, logged and shown
// generically. JSON under /api, a page elsewhere; when the page itself
// fails, plain text with the same status.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	p := s.classify(err, c)
	if isAPI(c) {
		err = writeJSON(c, p.status, errorJSON{Error: p.message, Errors: nonNil(p.errors)})
	} else {
		page := views.ErrorPage{Status: p.status, Title: p.title, Message: p.message, Errors: p.errors}
		var ws *withSource
		if errors.As(err, &ws) {
			page.Source = ws.source
		}
		err = render(c, p.status, views.Error(page))
	}
	if err != nil {
		s.log.Error("write error response", "path", c.Request().URL.Path, "err", err)
		if !c.Response().Committed {
			// Still the status and the words, if not the page: never an
			// empty 200.
			_ = c.Blob(p.status, "text/plain; charset=utf-8", []byte(p.title+"\n\n"+p.message+"\n"))
		}
	}
}

func (s *Server) classify(err error, c echo.Context) problem {
	var (
		big  *http.MaxBytesError
		syn  *lab.SyntaxError
		inv  *lab.ValidationError
		herr *echo.HTTPError
	)
	switch {
	case errors.As(err, &big):
		return problem{http.StatusRequestEntityTooLarge, "Too large", fmt.Sprint(errTooLarge.Message), nil}
	case errors.As(err, &syn):
		return problem{http.StatusBadRequest, "Not valid JSON", syn.Error(), nil}
	case errors.As(err, &inv):
		return problem{http.StatusUnprocessableEntity, "This scenario is not valid",
			"Nothing was run. Fix these problems and replay it:", inv.Errors}
	case errors.As(err, &herr) && (herr.Code < 500 || herr.Code == http.StatusServiceUnavailable ||
		herr.Code == http.StatusInsufficientStorage):
		return problem{herr.Code, statusTitle(herr.Code), message(herr), nil}
	case store.CodeOf(err) != 0:
		return s.storeProblem(store.CodeOf(err), err, c)
	case c.Request().Context().Err() != nil && errors.Is(err, c.Request().Context().Err()):
		// The client went away: nobody reads the answer, and it is no failure of ours.
		return problem{statusClientClosed, "Client closed request", "The request was abandoned.", nil}
	}
	s.log.Error("request failed", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err)
	return problem{http.StatusInternalServerError, "Something went wrong",
		"The server could not answer this request. It has been logged; please try again in a moment.", nil}
}

// storeProblems is the answer to each code of the store's one error type:
// the only place a store error becomes a status and words.
var storeProblems = map[store.Code]problem{
	store.NotFound: {status: http.StatusNotFound, title: "Not found",
		message: "There is no saved run at this address."},
	store.NoRoom: {status: http.StatusNotFound, title: "Not found",
		message: "There is no live room with this code. Check the code on the presenter’s screen."},
	store.NoQuestion: {status: http.StatusConflict, title: "Conflict",
		message: "No question was asked at this step."},
	store.Answered: {status: http.StatusConflict, title: "Conflict",
		message: "This question was answered from this browser already."},
	store.NoHandover: {status: http.StatusForbidden, title: "Forbidden",
		message: "This hand-over code is wrong or was used already. Ask the presenter for a new one."},
	store.CodeTaken: {status: http.StatusServiceUnavailable, title: "Busy",
		message: "No free room code was found. Please try again in a moment."},
	store.Unavailable: {status: http.StatusServiceUnavailable, title: "Database unavailable",
		message: "The database cannot be reached right now, so nothing was saved or read. Please try again in a moment."},
	store.Gone: {status: http.StatusGone, title: "Taken down",
		message: "This run was taken down by the lab’s operators."},
	store.Full: {status: http.StatusInsufficientStorage, title: "Storage full",
		message: "The server cannot store runs now: the database has no room left, so nothing was saved. Saved runs can still be opened."},
}

// storeProblem answers a store error from storeProblems. A database that
// cannot be reached is worth a warning and a Retry-After, a full one an
// error in the log; a missing run or room is the client's doing.
func (s *Server) storeProblem(code store.Code, err error, c echo.Context) problem {
	p, ok := storeProblems[code]
	switch code {
	case store.Unavailable, store.Full:
		s.metrics.storeError(code)
	}
	if !ok {
		s.metrics.storeError(code)
		s.log.Error("request failed", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err)
		return problem{http.StatusInternalServerError, "Something went wrong",
			"The server could not answer this request. It has been logged; please try again in a moment.", nil}
	}
	switch code {
	case store.Gone:
		p.message = goneMessage(err)
	case store.Unavailable:
		s.log.Warn("database unavailable", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err)
		c.Response().Header().Set("Retry-After", retryAfter)
	case store.Full:
		if n, ok := s.full.note(time.Now()); ok {
			s.log.Error("database full", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err,
				"refused_since_last_line", n)
		}
	}
	return p
}

// fullDisk remembers when the store last said it has no room left: a
// full disk is logged once a minute, not once a request (a flood on a
// full disk wrote 53 MB of log in 20 s), and /readyz says not ready for a
// minute after.
type fullDisk struct {
	mu     sync.Mutex
	last   time.Time // the last time the store said so
	logged time.Time // the last line written
	since  int       // refusals since that line
}

// fullEvery is how often a full disk is logged, and how long /readyz
// says not ready after the store last said so.
const fullEvery = time.Minute

// note counts a refusal for a full disk, and says whether to write a line
// now and how many refusals it stands for.
func (f *fullDisk) note(now time.Time) (int, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.last = now
	f.since++
	if now.Sub(f.logged) < fullEvery {
		return 0, false
	}
	n := f.since
	f.logged, f.since = now, 0
	return n, true
}

// recent says whether the store said it is full within fullEvery.
func (f *fullDisk) recent(now time.Time) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.last.IsZero() && now.Sub(f.last) < fullEvery
}

// retryAfter is the Retry-After of a 503, in seconds: long enough for a
// database restart or failover to finish, short enough for a person.
const retryAfter = "5"

// statusClientClosed is logged for a request whose client went away before
// the answer (nginx's 499); the client never sees it.
const statusClientClosed = 499

// errorJSON is the body of every API error.
type errorJSON struct {
	Error  string           `json:"error"`
	Errors []lab.FieldError `json:"errors"`
}

func isAPI(c echo.Context) bool {
	p := c.Request().URL.Path
	return strings.HasPrefix(p+"/", paths.APIPrefix) // "/api" itself too
}

func statusTitle(code int) string {
	switch code {
	case http.StatusNotFound:
		return "Not found"
	case http.StatusMethodNotAllowed:
		return "Method not allowed"
	case http.StatusServiceUnavailable:
		return "Busy"
	case http.StatusTooManyRequests:
		return "Too many requests"
	}
	return http.StatusText(code)
}

// message is the HTTPError's message when it is ours; Echo's own (such as
// "Not Found") become a sentence.
func message(herr *echo.HTTPError) string {
	msg := fmt.Sprint(herr.Message)
	if msg != http.StatusText(herr.Code) {
		return msg
	}
	switch herr.Code {
	case http.StatusNotFound:
		return "There is nothing at this address."
	case http.StatusMethodNotAllowed:
		return "This address does not take that method."
	}
	return msg + "."
}

func nonNil(errs []lab.FieldError) []lab.FieldError {
	if errs == nil {
		return []lab.FieldError{}
	}
	return errs
}
