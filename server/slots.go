package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
)

// turns are a few slots shared by the whole process, at most one per
// client (an address, an IPv6 /64): the explorations' and the imports'.
// A request takes its client's share first, then a slot. Requests waiting
// for a slot are served in the order they came (a channel's waiting
// senders are), and since each client has at most one of them waiting,
// the next slot to free goes to the client that has waited longest, never
// to a client that asks many times at once. A share may hold more than
// one turn (perShare), for the computing requests' turns (work.go).
type turns struct {
	slots    chan struct{}
	perShare int

	mu      sync.Mutex
	clients map[string]*share // the clients holding or waiting for their share
	inside  int               // the requests holding or waiting for a share
}

// share is one client's share of the slots: its token, and the requests
// holding or waiting for it (at 0 the client is forgotten).
type share struct {
	token chan struct{}
	users int
}

// errTurnWait is a request that waited for a slot as long as it may.
var errTurnWait = errors.New("no slot came free in time")

func newTurns(slots int) *turns { return newSharedTurns(slots, 1) }

// newSharedTurns are turns of which each client may hold perShare at once.
func newSharedTurns(slots, perShare int) *turns {
	return &turns{slots: make(chan struct{}, slots), perShare: perShare, clients: map[string]*share{}}
}

// of is client's share, counted as used by one more request.
func (t *turns) of(client string) *share {
	t.mu.Lock()
	defer t.mu.Unlock()
	sh := t.clients[client]
	if sh == nil {
		sh = &share{token: make(chan struct{}, t.perShare)}
		t.clients[client] = sh
	}
	sh.users++
	t.inside++
	return sh
}

// drop stops counting a request on client's share.
func (t *turns) drop(client string, sh *share) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.inside--
	if sh.users--; sh.users == 0 {
		delete(t.clients, client)
	}
}

// tryClient takes client's share if it is free, and says whether it did.
// release gives it back.
func (t *turns) tryClient(client string) (release func(), ok bool) {
	sh := t.of(client)
	select {
	case sh.token <- struct{}{}:
		return t.releaser(client, sh), true
	default:
		t.drop(client, sh)
		return nil, false
	}
}

// waitClient takes client's share, waiting while the client's earlier
// requests hold it, until ctx ends.
func (t *turns) waitClient(ctx context.Context, client string) (release func(), err error) {
	sh := t.of(client)
	select { // a free share is taken whatever ctx says, as waitSlot does
	case sh.token <- struct{}{}:
		return t.releaser(client, sh), nil
	default:
	}
	select {
	case sh.token <- struct{}{}:
		return t.releaser(client, sh), nil
	case <-ctx.Done():
		t.drop(client, sh)
		return nil, ctx.Err()
	}
}

func (t *turns) releaser(client string, sh *share) func() {
	return func() {
		<-sh.token
		t.drop(client, sh)
	}
}

// waitSlot takes a slot, waiting at most queue for one (none when queue
// is 0 or less); errTurnWait when none came free, ctx's error if it ends
// first. free gives the slot back.
func (t *turns) waitSlot(ctx context.Context, queue time.Duration) (free func(), err error) {
	select {
	case t.slots <- struct{}{}:
		return t.free, nil
	default:
	}
	if queue <= 0 {
		return nil, errTurnWait
	}
	timer := time.NewTimer(queue)
	defer timer.Stop()
	select {
	case t.slots <- struct{}{}:
		return t.free, nil
	case <-timer.C:
		return nil, errTurnWait
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (t *turns) free() { <-t.slots }

// running is the slots taken now.
func (t *turns) running() int { return len(t.slots) }

// waiting is the requests waiting for their client's share or a slot.
func (t *turns) waiting() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return max(0, t.inside-len(t.slots))
}

// ImportConfig bounds the imports the server reads and parses at once
// (the import page, its preview, and POST /api/imports). A zero field
// takes its default.
type ImportConfig struct {
	// AtOnce is the imports read and parsed at once on the server: 2, and
	// one per client. The slots, not chance, bound their memory: docs/
	// operations.md has the arithmetic.
	AtOnce int
	// Queue is how long an import waits for its turn, first behind the
	// client's own earlier import, then for a slot, before 429 (its own
	// was still running) or 503 (the server was busy): 10 s.
	Queue time.Duration
}

// The import page's turns. An upload of 4 MiB costs about 30 MB while it
// is parsed, and one with --skew explores for up to its deadline, so 128
// at once from one address took 3.8 GB and the cores. Each client (an
// address, an IPv6 /64) imports one at a time, and the server AtOnce;
// more wait their turn, in the order they came, for at most Queue,
// before their body is read. A request's body is read only once it has
// its turn, within importReadTime from then.
const (
	defaultImportsAtOnce = 2
	defaultImportQueue   = 10 * time.Second
	importReadTime       = 15 * time.Second
	refusalReadTime      = 5 * time.Second // for a refused body, read only to be dropped
	refusedDrains        = 4               // refused bodies read at once
)

func (cfg ImportConfig) withDefaults() ImportConfig {
	if cfg.AtOnce <= 0 {
		cfg.AtOnce = defaultImportsAtOnce
	}
	if cfg.Queue <= 0 {
		cfg.Queue = defaultImportQueue
	}
	return cfg
}

var (
	errImportBusy = echo.NewHTTPError(http.StatusServiceUnavailable,
		"The server is reading as many logs as it can at once. Please try again in a few seconds.")
	errImportOverShare = echo.NewHTTPError(http.StatusTooManyRequests,
		"An import of yours is still being read: each visitor imports one at a time. Please try again when it has finished.")
)

// importTurn runs h once the client and the server have a free turn.
func (s *Server) importTurn(h echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx, cancel := context.WithTimeout(c.Request().Context(), s.importCfg.Queue)
		defer cancel()
		release, err := s.imports.waitClient(ctx, clientKey(c))
		if err != nil {
			return s.turnRefused(c, err, errImportOverShare, &s.importsRefusedShare)
		}
		defer release()
		// The time left of Queue; ctx ends the wait when it runs out.
		free, err := s.imports.waitSlot(ctx, s.importCfg.Queue)
		if err != nil {
			return s.turnRefused(c, err, errImportBusy, &s.importsRefusedBusy)
		}
		defer free()
		// The server's read timeout ran while the request waited.
		_ = http.NewResponseController(c.Response()).SetReadDeadline(time.Now().Add(importReadTime))
		return h(c)
	}
}

// turnRefused answers a request that waited for its turn in vain: the
// client's own error when it went away, else refusal with Retry-After,
// counted in refused.
func (s *Server) turnRefused(c echo.Context, err error, refusal *echo.HTTPError, refused *atomic.Int64) error {
	if c.Request().Context().Err() != nil {
		return c.Request().Context().Err()
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errTurnWait) {
		refused.Add(1)
		s.discardBody(c)
		c.Response().Header().Set("Retry-After", retryAfter)
		return refusal
	}
	return err
}

// discardBody reads what is left of a refused request's body, within the
// body limit and refusalReadTime, into nothing: a server that answers
// before the body is in and then closes makes the kernel reset the
// connection while the client still sends, and the client sees "connection
// reset", not the refusal and its Retry-After. Nothing of it is kept. Only
// refusedDrains are read at once: past them, in a flood, a refused
// request's connection is closed unread, since a hundred bodies of 4 MiB
// read at once took the cores from everyone else.
func (s *Server) discardBody(c echo.Context) {
	select {
	case s.drains <- struct{}{}:
		defer func() { <-s.drains }()
	default:
		return
	}
	_ = http.NewResponseController(c.Response()).SetReadDeadline(time.Now().Add(refusalReadTime))
	_, _ = io.Copy(io.Discard, c.Request().Body)
}
