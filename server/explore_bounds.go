package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
)

// The bounds of one exploration on the web. A request may ask for other
// ones within the caps: the cap of states keeps two explorations at once
// under about 300 MB, the cap of time within the server's write timeout.
const (
	defaultExploreBudget   = 200_000
	defaultExploreDeadline = 2 * time.Second
	maxExploreBudget       = 1_000_000
	maxExploreDeadline     = 10 * time.Second
	defaultExploreLimit    = 2
	defaultExploreQueue    = 3 * time.Second
	defaultExploreCache    = 64
	retryAfterSeconds      = 5
)

// ExploreConfig bounds the explorations of every ordering that the server
// runs (the /explore page and POST /api/explore). A zero field takes its
// default.
type ExploreConfig struct {
	Budget   int           // distinct states per exploration unless the request asks: 200,000
	Deadline time.Duration // time per exploration unless the request asks: 2 s
	// Limit is how many explorations run at once; more get 503: 2 (and one
	// per client; more get 429); each gets the cores divided by Limit.
	Limit int
	Cache int // explorations kept by scenario: 64
	// Queue is how long an exploration waits for a slot while all are
	// taken, in the order they came, before it answers 503: 3 s, so that
	// the next slot to free goes to whoever waited for it, not to whoever
	// asks again first; negative: no wait.
	Queue time.Duration
	// Run explores; nil means lab.Explore. Tests count or hold the calls.
	Run func(context.Context, *lab.Scenario, lab.ExploreOptions) *lab.Exploration
}

func (cfg ExploreConfig) withDefaults() ExploreConfig {
	if cfg.Budget <= 0 {
		cfg.Budget = defaultExploreBudget
	}
	if cfg.Deadline <= 0 {
		cfg.Deadline = defaultExploreDeadline
	}
	if cfg.Limit <= 0 {
		cfg.Limit = defaultExploreLimit
	}
	if cfg.Queue == 0 {
		cfg.Queue = defaultExploreQueue
	}
	if cfg.Cache <= 0 {
		cfg.Cache = defaultExploreCache
	}
	if cfg.Run == nil {
		cfg.Run = lab.Explore
	}
	return cfg
}

// errBusy answers an exploration while every slot is taken.
var errBusy = echo.NewHTTPError(http.StatusServiceUnavailable,
	"The server is already exploring as many scenarios as it can at once. Please try again in a few seconds.")

// errOverShare answers a client that asks for a second exploration while
// its first one runs: one slot per client, so that nobody can hold them all.
var errOverShare = echo.NewHTTPError(http.StatusTooManyRequests,
	"An exploration of yours is still running: each visitor runs one at a time. Please try again when it has finished.")

// errNetworkShare answers a client whose network (a /24, an IPv6 /48)
// already runs its share of the explorations.
var errNetworkShare = echo.NewHTTPError(http.StatusTooManyRequests,
	"Explorations from your network are running already: a network runs at most half of the lab's at once. "+
		"Please try again when one has finished.")

// explorations runs explorations within a process-wide limit of slots, at
// most one slot per client, and keeps their results by scenario. Identical
// explorations asked for at once run once: later ones wait for the first
// and share its answer.
type explorations struct {
	cfg   ExploreConfig
	turns *turns // the slots, and each client's share of them
	// networks is each network's share: half the slots, at least one, so
	// that two addresses of one /24 cannot hold both of the default two.
	networks *turns
	cache    *exploreCache
	workers  int // cores per exploration: the server's, shared among the slots

	mu      sync.Mutex
	flights map[string]*flight // by scenario key, budget and deadline

	// Explorations refused, for the metrics.
	refusedBusy, refusedShare atomic.Int64
}

// flight is one exploration running for everyone who asked for it.
type flight struct {
	done    chan struct{} // closed once x is set
	x       *lab.Exploration
	waiters int                // requests still waiting; at 0 it is cancelled
	cancel  context.CancelFunc // stops the exploration
}

func newExplorations(cfg ExploreConfig) *explorations {
	cfg = cfg.withDefaults()
	return &explorations{cfg: cfg, turns: newTurns(cfg.Limit), networks: newSharedTurns(0, max(1, cfg.Limit/2)),
		cache:   newExploreCache(cfg.Cache),
		workers: max(1, runtime.GOMAXPROCS(0)/cfg.Limit), flights: map[string]*flight{}}
}

// runAll runs an exploration's tasks each on its own goroutine.
func runAll(tasks []func()) {
	var wg sync.WaitGroup
	for _, t := range tasks {
		wg.Go(t)
	}
	wg.Wait()
}

// requester is who asks for an exploration: its client and its network.
type requester struct{ client, network string }

// requesterOf is c's client and network.
func requesterOf(c echo.Context) requester { return requester{clientKey(c), networkKey(c)} }

// bounds are what one exploration may spend, and the switches back to
// model 1's rules it runs with.
type bounds struct {
	budget   int
	deadline time.Duration
	writes   lab.Writes
	expiry   lab.Expiry
}

// run explores sc within b for client, or answers from the cache, or
// shares an identical exploration already running. It never waits for a
// slot: when the client holds one already it fails with errOverShare, when
// all are taken with errBusy. If ctx ends first, run returns its error, and
// the exploration stops once nobody waits for it. progress, if not nil, is
// called while this request leads the exploration and waits.
func (e *explorations) run(ctx context.Context, who requester, sc *lab.Scenario, b bounds, progress func(int)) (*lab.Exploration, error) {
	key, err := exploreKey(sc)
	if err != nil {
		return nil, err
	}
	key += "/" + string(b.writes) + "/" + string(b.expiry)
	if x, ok := e.cache.get(key, b.budget); ok {
		return x, nil
	}
	var att *attached
	if progress != nil {
		att = &attached{fn: progress}
		progress = att.call
	}
	defer att.detach()
	f, err := e.join(ctx, key, who, sc, b, progress)
	if err != nil {
		return nil, fmt.Errorf("explore: %w", err)
	}
	select {
	case <-f.done:
		return f.x, nil
	case <-ctx.Done():
		if e.leave(key, b, f) {
			<-f.done // cancelled: it stops at once and frees its slot
		}
		return nil, ctx.Err()
	}
}

func flightKey(key string, b bounds) string {
	return budgetKey(key, b.budget) + "/" + b.deadline.String()
}

// join waits on the identical exploration in flight, or starts one once
// a slot is free, waiting for it at most cfg.Queue. The client holds its
// share while it waits, so that it cannot queue twice.
func (e *explorations) join(ctx context.Context, key string, who requester, sc *lab.Scenario, b bounds, progress func(int)) (*flight, error) {
	fk := flightKey(key, b)
	e.mu.Lock()
	if f, ok := e.flights[fk]; ok {
		f.waiters++
		e.mu.Unlock()
		return f, nil
	}
	e.mu.Unlock()
	releaseClient, ok := e.turns.tryClient(who.client)
	if !ok {
		e.refusedShare.Add(1)
		return nil, errOverShare
	}
	releaseNet, ok := e.networks.tryClient(who.network)
	if !ok {
		releaseClient()
		e.refusedShare.Add(1)
		return nil, errNetworkShare
	}
	release := func() { releaseClient(); releaseNet() }
	free, err := e.turns.waitSlot(ctx, e.cfg.Queue)
	if errors.Is(err, errTurnWait) {
		e.refusedBusy.Add(1)
		err = errBusy
	}
	if err != nil {
		release()
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if f, ok := e.flights[fk]; ok { // started by another while this one waited
		free()
		release()
		f.waiters++
		return f, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.deadline)
	f := &flight{done: make(chan struct{}), waiters: 1, cancel: cancel}
	e.flights[fk] = f
	go e.fly(ctx, key, func() { release(); free() }, f, sc, b, progress)
	return f, nil
}

// fly runs the exploration, keeps it, and frees the slot and the client's
// share (done) before answering the waiters.
func (e *explorations) fly(ctx context.Context, key string, done func(), f *flight, sc *lab.Scenario, b bounds, progress func(int)) {
	x := e.cfg.Run(ctx, sc, lab.ExploreOptions{Budget: b.budget, Progress: progress, Writes: b.writes, Expiry: b.expiry,
		Workers: e.workers, RunAll: runAll})
	f.cancel()
	e.cache.put(key, b.budget, x)
	e.mu.Lock()
	if fk := flightKey(key, b); e.flights[fk] == f {
		delete(e.flights, fk)
	}
	done()
	f.x = x
	e.mu.Unlock()
	close(f.done)
}

// counts are the explorations running now, and the requests waiting for
// one that another request started.
func (e *explorations) counts() (running, waiting int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, f := range e.flights {
		waiting += f.waiters - 1
	}
	return e.turns.running(), waiting
}

// leave stops waiting on f; the last to leave cancels the exploration
// (and reports it), and a request that comes after starts a new one rather
// than join a cancelled one.
func (e *explorations) leave(key string, b bounds, f *flight) (last bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if f.waiters--; f.waiters > 0 {
		return false
	}
	f.cancel()
	if fk := flightKey(key, b); e.flights[fk] == f {
		delete(e.flights, fk)
	}
	return true
}

// attached passes progress to the request that leads an exploration only
// while it waits: once it has gone (or has its answer), the exploration,
// which may go on for others, must not write to its response.
type attached struct {
	mu   sync.Mutex
	fn   func(int)
	gone bool
}

func (a *attached) call(states int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.gone {
		a.fn(states)
	}
}

func (a *attached) detach() {
	if a == nil {
		return
	}
	a.mu.Lock()
	a.gone = true
	a.mu.Unlock()
}

// parseBounds reads the optional budget (states) and deadline (a duration
// such as 2s) of a request, and the switches writes (split or atomic) and
// expiry (free or program); absent ones take the server's defaults.
func (e *explorations) parseBounds(get func(string) string) (bounds, error) {
	b := bounds{budget: e.cfg.Budget, deadline: e.cfg.Deadline}
	var err error
	if b.writes, err = lab.ParseWrites(get("writes")); err != nil {
		return b, echo.NewHTTPError(http.StatusBadRequest,
			fmt.Sprintf("writes must be split (a write is a send and a delivery, the default) or atomic, not %q.", get("writes")))
	}
	if b.expiry, err = lab.ParseExpiry(get("expiry")); err != nil {
		return b, echo.NewHTTPError(http.StatusBadRequest,
			fmt.Sprintf("expiry must be free (the clock expires a lease at any time, the default) "+
				"or program (in the worker's order), not %q.", get("expiry")))
	}
	if v := get("budget"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxExploreBudget {
			return b, echo.NewHTTPError(http.StatusBadRequest,
				fmt.Sprintf("The budget must be a whole number of states from 1 to %d, not %q.", maxExploreBudget, v))
		}
		b.budget = n
	}
	if v := get("deadline"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > maxExploreDeadline {
			return b, echo.NewHTTPError(http.StatusBadRequest,
				fmt.Sprintf("The deadline must be a duration such as 2s, at most %s, not %q.", maxExploreDeadline, v))
		}
		b.deadline = d
	}
	return b, nil
}

// busy marks the response of a refused exploration with when to retry.
func busy(c echo.Context, err error) error {
	if errors.Is(err, errBusy) || errors.Is(err, errOverShare) || errors.Is(err, errNetworkShare) {
		c.Response().Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds))
	}
	return err
}
