package server

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
)

// The computing requests' turns: a replay, a save, the editor's answers
// and a comparison each parse and replay a scenario of up to 500 events,
// a few milliseconds of a core, and a save then writes its run. Served all
// at once, 256 of them from a flood made every other request wait for the
// cores: Go's scheduler gives each runnable request its 10 ms in turn, so
// a polite client's small save, waking four or five times while it was
// served, waited behind all of them each time, 1 to 2 s in all. Now such
// a request waits, once its body is in, for a turn of its network (a /24
// or /48), of its client (an address or /64) and of the server (a few per
// core), in the order they came: a client waits behind a few requests of
// each other network, not behind everything a flood has sent. Small
// bodies (a hand-made scenario) and large ones (hundreds of events) take
// their turns in two lanes, so that a small save waits behind other small
// ones, not behind a round of large runs being written, which at 64
// flooding networks took the store over half a second.
const (
	smallWork = 8 << 10          // the largest body of the small lane
	workQueue = 10 * time.Second // the longest wait for a turn, before 429 or 503
)

// lane is one lane's turns.
type lane struct {
	clients  *turns // each client's share, and the lane's slots
	networks *turns // each network's share; its slots are not used
}

// newLane is a lane of slots, perClient of them at most for one client
// and perNetwork for one network.
func newLane(slots, perClient, perNetwork int) lane {
	return lane{clients: newSharedTurns(slots, perClient), networks: newSharedTurns(0, perNetwork)}
}

// work is the turns of the computing requests: four slots per core in
// each lane, at least eight, so that saves still share the store's
// commits; two turns per client and four per network in the small lane,
// one and two in the large one.
type work struct {
	small, large lane
	// Requests refused after their wait, for the metrics.
	refusedBusy, refusedShare atomic.Int64
}

func newWork() *work {
	slots := max(8, 4*runtime.GOMAXPROCS(0))
	return &work{small: newLane(slots, 2, networkShare), large: newLane(slots, 1, 2)}
}

// counts are the computing requests being served, and those waiting for
// a turn (every request is counted on its network's share first).
func (w *work) counts() (running, waiting int) {
	for _, l := range []lane{w.small, w.large} {
		l.networks.mu.Lock()
		inside := l.networks.inside
		l.networks.mu.Unlock()
		r := l.clients.running()
		running, waiting = running+r, waiting+max(0, inside-r)
	}
	return running, waiting
}

var (
	errWorkBusy = echo.NewHTTPError(http.StatusServiceUnavailable,
		"The server is computing as many runs as it can at once. Please try again in a few seconds.")
	errWorkOverShare = echo.NewHTTPError(http.StatusTooManyRequests,
		"Your earlier requests, or your network's, are still being computed. Please try again when they have finished.")
)

// inTurn runs h, a computing request, in its turn. The body (at most
// maxBody, by limitBody) is read first, so that a slow sender holds no
// turn while it sends; h reads it again from memory. A refusal's moment
// (Server.wait) is waited once the turn is given back, so that a flood's
// refusals hold no turn while they wait.
func (s *Server) inTurn(h echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Body != nil && req.Body != http.NoBody {
			buf, err := readBody(c)
			if err != nil {
				return err
			}
			defer releaseBody(buf)
			req.Body = io.NopCloser(bytes.NewReader(buf.Bytes()))
			req.ContentLength = int64(buf.Len())
		}
		return s.inLane(c, s.work.laneOf(req), h)
	}
}

// laneOf is the lane of a request by the size of its body.
func (w *work) laneOf(req *http.Request) lane {
	if req.ContentLength > smallWork || req.ContentLength < 0 {
		return w.large
	}
	return w.small
}

// rendering runs h, a page that renders a run or a scenario afresh (a
// presentation, the editor), in its turn of the large lane: the page of a
// 500-event run is a megabyte, and 256 of them rendered at once, for
// distinct ?p= choices, took 2.2 GB and made a polite client's reads
// take 1.5 to 2.7 s. A page the page cache keeps takes the turn only when
// it is rendered (cached).
func (s *Server) rendering(h echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error { return s.inLane(c, s.work.large, h) }
}

// inLane runs h in its turn of l, and then waits the moment its refusal
// asked for, if any. h's answer is kept in memory and sent once the
// server's slot is given back, so that a client reading it slowly holds no
// slot of the others; its client's and network's turns are held until the
// answer is sent, so that the answers kept for slow readers are a few for
// each client, not one for each of its connections (480 connections of one
// address that read nothing kept 480 editor pages of 2.3 MB, 2.5 GB).
func (s *Server) inLane(c echo.Context, l lane, h echo.HandlerFunc) error {
	var (
		delay  time.Duration
		shares func()
	)
	res := c.Response()
	rec := &recorder{header: res.Header()}
	err := record(res, rec, func() (err error) {
		shares, err = s.served(c, l, h, &delay)
		return err
	})
	if err != nil {
		res.Header().Del(echo.HeaderContentLength) // the error page is not the answer h had begun
	} else if rec.status != 0 {
		res.WriteHeader(rec.status)
		_, err = res.Write(rec.body.Bytes())
	}
	if shares != nil {
		shares()
	}
	s.wait(c, delay) // with no turn held
	return err
}

// served runs h once it has its turns in l, and gives the server's slot
// back; it returns what gives the client's and the network's turns back
// (nil when it got none). The moment h's refusal asked for is left in delay.
func (s *Server) served(c echo.Context, l lane, h echo.HandlerFunc, delay *time.Duration) (func(), error) {
	ctx, cancel := context.WithTimeout(c.Request().Context(), workQueue)
	defer cancel()
	releaseNet, err := l.networks.waitClient(ctx, networkKey(c))
	if err != nil {
		return nil, s.turnRefused(c, err, errWorkOverShare, &s.work.refusedShare)
	}
	release, err := l.clients.waitClient(ctx, clientKey(c))
	if err != nil {
		releaseNet()
		return nil, s.turnRefused(c, err, errWorkOverShare, &s.work.refusedShare)
	}
	shares := func() { release(); releaseNet() }
	free, err := l.clients.waitSlot(ctx, workQueue)
	if err != nil {
		shares()
		return nil, s.turnRefused(c, err, errWorkBusy, &s.work.refusedBusy)
	}
	defer free()
	handed := false
	defer func() { // a panic in h gives the turns back too
		if !handed {
			shares()
		}
	}()
	c.Set(delayKey, delay)
	defer c.Set(delayKey, nil)
	err = h(c)
	handed = true
	return shares, err
}

// delayKey holds, in a request served in its turn, where Server.wait
// leaves the moment it would have waited.
const delayKey = "fencelab.delay"
