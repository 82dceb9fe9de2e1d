// Package server serves the lab on the web: the pages, the JSON API and the
// saved runs, with Echo.
package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/server/store"
	"fencelab/views"
)

// Config is what the server needs from the program that wires it.
type Config struct {
	Store   store.Runs
	Library *lab.Library
	Secret  []byte       // keys the run ids; keep it stable across restarts
	Logger  *slog.Logger // nil: slog.Default()
	// AccessLog gets one line per request; nil writes none.
	AccessLog *slog.Logger
	Explore   ExploreConfig // bounds of the explorations of every ordering
	Imports   ImportConfig  // bounds of the imports read and parsed at once
	// PageCacheBytes bounds the rendered pages kept in memory; 0 means 64 MB.
	PageCacheBytes int
	// BaseURL is the lab's public address, such as https://fencelab.example
	// (a path prefix is kept): permanent links, Location and the exports'
	// links are built on it, the link previews' addresses only on it, and a
	// browser's post must come from its origin.
	// Empty: the scheme and Host of each request, which a client chooses.
	BaseURL string
	// Rooms keeps live rooms; nil turns them off.
	Rooms store.Rooms
	// Fanout carries a room's changes to every server; nil: this server's
	// memory, right when it is the only server on its database.
	Fanout store.Fanout
	Room   RoomConfig // bounds of the live rooms
	// TrustedProxies are the addresses (IPs or CIDR ranges) of reverse
	// proxies in front of the server: a request from one of them is taken
	// to come from the address its X-Forwarded-For names. None: the
	// connection's own address, whatever the headers say.
	TrustedProxies []string
	// Takedowns says which runs the operators hid; nil: the Store's own,
	// when it keeps them.
	Takedowns store.Takedowns
	// Limits bounds what each client may save, and the store's size.
	Limits Limits
	// Sizer measures the store for Limits.MaxStoreSize and the metrics;
	// nil: the Store itself, when it can.
	Sizer store.Sizer
}

// Server is the lab's HTTP handler.
type Server struct {
	echo  *echo.Echo
	store store.Runs
	// takedowns, nil when the store keeps none, is asked before serving
	// any run.
	takedowns store.Takedowns
	library   *lab.Library
	secret    []byte
	log       *slog.Logger
	access    *slog.Logger // nil: no access log
	baseURL   *url.URL     // nil: each request's own host
	origins   *http.CrossOriginProtection

	explorations *explorations
	drifts       *driftMemo
	pages        *pageCache                  // rendered answers that cannot change
	replays      *pageCache                  // POST /api/replay's answers, by the body's SHA-256
	assets       map[string]*asset           // the static files, by name
	formats      map[string]echo.HandlerFunc // a saved run's page and exports, by suffix

	budgets  *budgets   // each client's saves, bytes, rooms, answers and wrong codes
	networks *budgets   // the same of each /24 and /48, and its share of the store's reserve
	full     fullDisk   // when the store last said it is full, and its log line
	spool    fullDisk   // when an import last found no room to spool its logs
	size     *storeSize // the store's size, for the limit and the metrics
	metrics  *metrics
	renders  chan struct{} // a token for each full-size picture being drawn

	work *work // the turns of the requests that replay a scenario

	// imports are the imports read and parsed now, and each client's share;
	// drains the refused imports' bodies being read into nothing.
	imports   *turns
	importCfg ImportConfig
	drains    chan struct{}
	// Imports refused after their wait, for the metrics.
	importsRefusedBusy, importsRefusedShare atomic.Int64

	rooms      store.Rooms
	fanout     store.Fanout
	roomLimits RoomConfig
	hub        *hub
	decks      decks
	shutdown   chan struct{}
	closeOnce  sync.Once
}

// New builds the server with its routes and middleware.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil || cfg.Library == nil {
		return nil, errors.New("server: a store and a library are required")
	}
	if len(cfg.Secret) < 16 {
		return nil, errors.New("server: the secret must have at least 16 bytes")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	base, err := parseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	s := &Server{echo: echo.New(), store: cfg.Store, library: cfg.Library, secret: cfg.Secret, log: log, baseURL: base}
	if s.origins, err = newOrigins(base); err != nil {
		return nil, err
	}
	s.access = cfg.AccessLog
	s.takedowns = cfg.Takedowns
	if s.takedowns == nil {
		s.takedowns, _ = cfg.Store.(store.Takedowns)
	}
	s.budgets = newBudgets(cfg.Limits.withDefaults())
	s.networks = newNetworkBudgets(cfg.Limits.withDefaults())
	s.size = &storeSize{sizer: cfg.Sizer, max: cfg.Limits.MaxStoreSize}
	if s.size.sizer == nil {
		s.size.sizer, _ = cfg.Store.(store.Sizer)
	}
	s.explorations = newExplorations(cfg.Explore)
	s.drifts = newDriftMemo()
	s.pages = newPageCache(cfg.PageCacheBytes)
	s.replays = newPageCache(replayCacheBytes)
	assets, err := sharedAssets()
	if err != nil {
		return nil, fmt.Errorf("server: load static files: %w", err)
	}
	s.assets = assets
	s.rooms, s.fanout, s.roomLimits = cfg.Rooms, cfg.Fanout, cfg.Room.withDefaults()
	if s.fanout == nil {
		s.fanout = store.NewMemoryFanout()
	}
	s.hub = newHub(s, s.fanout, s.roomLimits)
	s.metrics = newMetrics(s)
	s.renders = make(chan struct{}, fullRenders)
	s.work = newWork()
	s.importCfg = cfg.Imports.withDefaults()
	s.imports = newTurns(s.importCfg.AtOnce)
	s.drains = make(chan struct{}, refusedDrains)
	s.decks.m = map[string]views.PresentPage{}
	s.shutdown = make(chan struct{})
	s.echo.HideBanner = true
	s.echo.HidePort = true
	s.echo.HTTPErrorHandler = s.handleError
	if s.echo.IPExtractor, err = ipExtractor(cfg.TrustedProxies); err != nil {
		return nil, err
	}
	s.routes()
	return s, nil
}

// parseBaseURL accepts an absolute http or https URL without query or
// fragment; the empty string means none.
func parseBaseURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("server: the base URL must be an http or https address such as https://fencelab.example, not %q", raw)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// Close ends the live rooms' streams, which would otherwise hold a
// graceful shutdown until its deadline; the phones reconnect elsewhere or
// when the server is back. Register it with http.Server.RegisterOnShutdown.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.shutdown) })
}

// ipExtractor tells a client's address: the connection's, or behind a
// trusted proxy the forwarded one. Echo trusts private and loopback ranges
// by default; here only the configured ones are.
func ipExtractor(proxies []string) (echo.IPExtractor, error) {
	if len(proxies) == 0 {
		return echo.ExtractIPDirect(), nil
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, p := range proxies {
		if !strings.Contains(p, "/") {
			if strings.Contains(p, ":") {
				p += "/128"
			} else {
				p += "/32"
			}
		}
		_, ipnet, err := net.ParseCIDR(p)
		if err != nil {
			return nil, fmt.Errorf("server: a trusted proxy must be an IP address or CIDR range, not %q", p)
		}
		opts = append(opts, echo.TrustIPRange(ipnet))
	}
	return echo.ExtractIPFromXFFHeader(opts...), nil
}

// ServeHTTP serves one request through routing, middleware and the error handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.echo.ServeHTTP(w, r)
}
