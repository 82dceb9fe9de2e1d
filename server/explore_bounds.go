package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
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
	defaultExploreCache    = 64
	retryAfterSeconds      = 5
)

// ExploreConfig bounds the explorations of every ordering that the server
// runs (the /explore page and POST /api/explore). A zero field takes its
// default.
type ExploreConfig struct {
	Budget   int           // distinct states per exploration unless the request asks: 200,000
	Deadline time.Duration // time per exploration unless the request asks: 2 s
	Limit    int           // explorations running at once; more get 503: 2
	Cache    int           // explorations kept by scenario: 64
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

// explorations runs explorations within a process-wide limit, and keeps
// their results by scenario.
type explorations struct {
	cfg   ExploreConfig
	slots chan struct{}
	cache *exploreCache
}

func newExplorations(cfg ExploreConfig) *explorations {
	cfg = cfg.withDefaults()
	return &explorations{cfg: cfg, slots: make(chan struct{}, cfg.Limit), cache: newExploreCache(cfg.Cache)}
}

// bounds are what one exploration may spend, and the switches back to
// model 1's rules it runs with.
type bounds struct {
	budget   int
	deadline time.Duration
	writes   lab.Writes
	expiry   lab.Expiry
}

// run explores sc within b, or answers from the cache. It never waits for
// a slot: when all are taken it fails with errBusy at once.
func (e *explorations) run(ctx context.Context, sc *lab.Scenario, b bounds, progress func(int)) (*lab.Exploration, error) {
	key, err := exploreKey(sc)
	if err != nil {
		return nil, err
	}
	key += "/" + string(b.writes) + "/" + string(b.expiry)
	if x, ok := e.cache.get(key, b.budget); ok {
		return x, nil
	}
	select {
	case e.slots <- struct{}{}:
		defer func() { <-e.slots }()
	default:
		return nil, errBusy
	}
	ctx, cancel := context.WithTimeout(ctx, b.deadline)
	defer cancel()
	x := e.cfg.Run(ctx, sc, lab.ExploreOptions{Budget: b.budget, Progress: progress, Writes: b.writes, Expiry: b.expiry})
	e.cache.put(key, b.budget, x)
	return x, nil
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
			fmt.Sprintf("expiry must be free (the clock expires a lease at any time, the default) or program (in the worker's order), not %q.", get("expiry")))
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
	if errors.Is(err, errBusy) {
		c.Response().Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds))
	}
	return err
}
