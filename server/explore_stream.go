package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/views"
)

// progressEvery is the least time between two progress events.
const progressEvery = 100 * time.Millisecond

// progressJSON is the data of a "progress" event.
type progressJSON struct {
	States     int   `json:"states"`
	Budget     int   `json:"budget"`
	ElapsedMS  int64 `json:"elapsed_ms"`
	DeadlineMS int64 `json:"deadline_ms"`
}

// resultJSON is the data of the final "result" event: the page's result
// section, rendered, and the exploration as POST /api/explore answers it.
type resultJSON struct {
	HTML        string           `json:"html"`
	Exploration *lab.Exploration `json:"exploration"`
}

// streamExplore explores sc and sends server-sent events: "progress" while
// it runs, then "result" (or "error"). Closing the connection cancels the
// request's context, and with it the exploration. A refusal or failure
// before the first byte is an ordinary error response.
func (s *Server) streamExplore(c echo.Context, sc *lab.Scenario, b bounds) error {
	start := time.Now()
	var last time.Time
	sse := &eventStream{c: c}
	progress := func(states int) {
		if now := time.Now(); sse.err == nil && now.Sub(last) >= progressEvery {
			last = now
			sse.send("progress", progressJSON{States: states, Budget: b.budget,
				ElapsedMS: now.Sub(start).Milliseconds(), DeadlineMS: b.deadline.Milliseconds()})
		}
	}
	x, err := s.explorations.run(c.Request().Context(), requesterOf(c), sc, b, progress)
	if err != nil && !c.Response().Committed {
		return busy(c, err)
	}
	if c.Request().Context().Err() != nil {
		return nil // the client left: nobody reads the result
	}
	if err == nil {
		err = s.sendResult(sse, sc, x, b)
	}
	if err != nil {
		s.log.Error("explore stream", "path", c.Request().URL.Path, "err", err)
		sse.send("error", errorJSON{Error: "The exploration could not be shown.", Errors: []lab.FieldError{}})
	}
	return nil
}

func (s *Server) sendResult(sse *eventStream, sc *lab.Scenario, x *lab.Exploration, b bounds) error {
	res, err := s.exploreResult(sc, x, b)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := views.ExploreResultSection(res).Render(sse.c.Request().Context(), &buf); err != nil {
		return fmt.Errorf("render exploration: %w", err)
	}
	sse.send("result", resultJSON{HTML: buf.String(), Exploration: x})
	return sse.err
}

// eventStream writes server-sent events, each flushed at once. The first
// event commits the response; after a failed write it writes nothing more.
type eventStream struct {
	c   echo.Context
	err error
}

func (e *eventStream) send(event string, data any) {
	if e.err != nil {
		return
	}
	b, err := json.Marshal(data)
	if err != nil {
		e.err = fmt.Errorf("encode %s event: %w", event, err)
		return
	}
	e.sendRaw(event, b)
}

// sendRaw sends an event whose data is already JSON on one line.
func (e *eventStream) sendRaw(event string, data []byte) {
	e.write(event, "event: %s\ndata: %s\n\n", event, data)
}

// comment sends an SSE comment, which clients ignore: a keep-alive.
func (e *eventStream) comment(text string) {
	e.write("comment", ": %s\n\n", text)
}

func (e *eventStream) write(what, format string, a ...any) {
	if e.err != nil {
		return
	}
	res := e.c.Response()
	if !res.Committed {
		h := res.Header()
		h.Set(echo.HeaderContentType, "text/event-stream")
		h.Set(echo.HeaderCacheControl, "no-store")
		h.Set("X-Accel-Buffering", "no")
		res.WriteHeader(http.StatusOK)
	}
	if _, err := fmt.Fprintf(res, format, a...); err != nil {
		e.err = fmt.Errorf("write %s event: %w", what, err)
		return
	}
	res.Flush()
}
