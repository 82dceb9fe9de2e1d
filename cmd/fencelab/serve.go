package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/net/netutil"

	"fencelab/lab"
	"fencelab/scenarios"
	"fencelab/server"
	"fencelab/server/store"
	"fencelab/server/store/sqlite"
)

// Timeouts of the HTTP server: a slow or stalled client cannot hold a
// connection for long, and shutdown waits a while for saves in flight.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 15 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 20 * time.Second
	shutdownTimeout   = 20 * time.Second
	// defaultMaxConns bounds open connections, idle keep-alives included, so
	// that no crowd can take every file descriptor: past it, new connections
	// wait in the listen queue until one closes.
	defaultMaxConns = 2048
	// metricsMaxConns bounds the metrics listener's connections: a
	// scraper or two, and an operator's curl.
	metricsMaxConns = 16
	// maxHeaderBytes bounds a request's header, cookies included (the
	// lab's are under 200 bytes): past it, 431. Go's default of 1 MB let
	// 2,000 connections each sending a megabyte of header take the
	// server's memory to 3 GB before their 5 s ran out.
	maxHeaderBytes = 32 << 10
)

// serveOptions are the serve command's flags.
type serveOptions struct {
	addr, dbPath, baseURL string
	trustedProxies        []string
	maxConns              int
	maxConnsPerClient     int          // 0: defaultConnShare(maxConns)
	access                *slog.Logger // nil: no access log
	rooms                 server.RoomConfig
	limits                *limitFlags
	metricsAddr           string // "": no metrics listener
}

// serve runs the web lab until SIGINT or SIGTERM, then shuts down
// gracefully: requests in flight, saves included, finish first.
func serve(args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("serve", flag.ContinueOnError)
	flags.SetOutput(stderr)
	addr := flags.String("addr", envOr("FENCELAB_ADDR", ":8080"), "listen address (env FENCELAB_ADDR)")
	dbPath := flags.String("db", envOr("FENCELAB_DB", "./fencelab.db"),
		"SQLite file, created if absent, or a postgres:// URL (env FENCELAB_DB)")
	accessPath := flags.String("access-log", envOr("FENCELAB_ACCESS_LOG", "stderr"),
		"where one line per request goes: stderr, off, or a file appended to (env FENCELAB_ACCESS_LOG)")
	baseURL := flags.String("base-url", os.Getenv("FENCELAB_BASE_URL"),
		"public address for links, such as https://fencelab.example (env FENCELAB_BASE_URL); default: each request's host")
	roomTTL := flags.Duration("room-ttl", envDuration("FENCELAB_ROOM_TTL", 4*time.Hour),
		"how long a live room takes answers (env FENCELAB_ROOM_TTL)")
	proxies := flags.String("trusted-proxy", os.Getenv("FENCELAB_TRUSTED_PROXY"),
		"comma-separated IPs or CIDR ranges of reverse proxies whose X-Forwarded-For is believed (env FENCELAB_TRUSTED_PROXY)")
	maxConns := flags.Int("max-conns", defaultMaxConns, "open connections at most, idle ones included")
	maxConnsPerClient := flags.Int("max-conns-per-client", 0, "open connections of one client (address, IPv6 "+
		"/64) at most; default: a quarter of --max-conns")
	metricsAddr := flags.String("metrics-addr", os.Getenv("FENCELAB_METRICS_ADDR"),
		"listen address of the Prometheus metrics at /metrics, such as 127.0.0.1:9090 (env FENCELAB_METRICS_ADDR); default: none")
	limits, err := addLimitFlags(flags)
	if err != nil {
		return err
	}
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return &usageError{err.Error()}
	}
	if flags.NArg() > 0 {
		return &usageError{fmt.Sprintf("serve takes no arguments, got %q", flags.Args())}
	}
	if *maxConns < 1 {
		return &usageError{fmt.Sprintf("--max-conns must be at least 1, got %d", *maxConns)}
	}
	if *maxConnsPerClient < 0 {
		return &usageError{fmt.Sprintf("--max-conns-per-client must be 0 (a quarter of --max-conns) or more, got %d", *maxConnsPerClient)}
	}
	if err := limits.check(); err != nil {
		return err
	}
	opts := serveOptions{addr: *addr, dbPath: *dbPath, baseURL: *baseURL, maxConns: *maxConns, maxConnsPerClient: *maxConnsPerClient,
		limits: limits, metricsAddr: *metricsAddr}
	for _, p := range strings.Split(*proxies, ",") {
		if p = strings.TrimSpace(p); p != "" {
			opts.trustedProxies = append(opts.trustedProxies, p)
		}
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	access, closeAccess, err := openAccessLog(*accessPath, stderr)
	if err != nil {
		return err
	}
	defer closeAccess()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts.access, opts.rooms = access, server.RoomConfig{TTL: *roomTTL}
	return listenAndServe(ctx, log, opts)
}

// openAccessLog returns the logger of the access log: lines to stderr
// beside the program's own log, none for off, else lines appended to a
// file. Its lines are written in batches (see batchWriter); the returned
// func writes what is held and closes the file.
func openAccessLog(where string, stderr io.Writer) (*slog.Logger, func(), error) {
	switch where {
	case "stderr", "":
		b := newBatchWriter(stderr, batchDelay)
		return slog.New(slog.NewTextHandler(b, nil)), b.Close, nil
	case "off":
		return nil, func() {}, nil
	}
	f, err := os.OpenFile(where, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
	if err != nil {
		return nil, nil, fmt.Errorf("open access log: %w", err)
	}
	b := newBatchWriter(f, batchDelay)
	return slog.New(slog.NewTextHandler(b, nil)), func() { b.Close(); f.Close() }, nil
}

// An access log's lines are gathered and written together: a write per
// line was a system call per request, about a fifth of the server's CPU
// for a small answer from memory. A line waits at most batchDelay.
const (
	batchBytes = 32 << 10
	batchDelay = 100 * time.Millisecond
)

// batchWriter gathers whole lines (each Write is one line of a slog
// handler) and writes them in one Write when it holds batchBytes, or its
// delay after the first line it holds, whichever comes first. A line is
// never split between two Writes, so another writer of the same file,
// such as the program's log on stderr, cannot land inside it.
type batchWriter struct {
	mu     sync.Mutex
	w      io.Writer
	buf    []byte
	delay  time.Duration
	timer  *time.Timer // armed while buf holds lines
	closed bool
}

func newBatchWriter(w io.Writer, delay time.Duration) *batchWriter {
	b := &batchWriter{w: w, buf: make([]byte, 0, batchBytes), delay: delay}
	b.timer = time.AfterFunc(time.Hour, b.Flush)
	b.timer.Stop()
	return b
}

func (b *batchWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.buf)+len(p) > batchBytes {
		if err := b.flushLocked(); err != nil {
			return 0, err
		}
	}
	if b.closed || len(p) > batchBytes {
		return b.w.Write(p)
	}
	if len(b.buf) == 0 {
		b.timer.Reset(b.delay)
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// Flush writes the lines held.
func (b *batchWriter) Flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushLocked()
}

func (b *batchWriter) flushLocked() error {
	if len(b.buf) == 0 {
		return nil
	}
	b.timer.Stop()
	_, err := b.w.Write(b.buf)
	b.buf = b.buf[:0]
	return err
}

// Close writes the lines held; later lines are written at once.
func (b *batchWriter) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushLocked()
	b.closed = true
}

func listenAndServe(ctx context.Context, log *slog.Logger, opts serveOptions) error {
	db, err := openStore(ctx, opts.dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	fanout, closeFanout := fanoutFor(db, log)
	defer closeFanout()
	handler, err := newServer(ctx, db, fanout, log, opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", opts.addr)
	if err != nil {
		return err
	}
	share := opts.maxConnsPerClient
	if share == 0 {
		share = defaultConnShare(opts.maxConns)
	}
	conns := newConnLimiter(ln, opts.maxConns, share, opts.trustedProxies)
	hs := &http.Server{
		Handler:           handler,
		ConnState:         conns.connState,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	hs.RegisterOnShutdown(handler.Close) // live rooms' streams end, so shutdown need not wait for them
	if sq, ok := db.(*sqlite.DB); ok {
		sq.ObserveGroups(handler.ObserveSaveGroup)
	}
	stopMetrics, err := serveMetrics(log, opts.metricsAddr, handler.Metrics())
	if err != nil {
		ln.Close()
		return err
	}
	defer stopMetrics()
	log.Info("serving", "addr", ln.Addr().String(), "db", redact(opts.dbPath), "engine", lab.Version,
		"base_url", opts.baseURL, "max_conns", opts.maxConns, "max_conns_per_client", share)
	return serveUntilDone(ctx, log, hs, conns)
}

// newServer wires the lab around db. Live rooms need a store that keeps
// them (SQLite and PostgreSQL do): without one the lab offers none. fanout
// carries the rooms' changes to the other servers on the database; nil:
// this server alone.
func newServer(ctx context.Context, db store.Runs, fanout store.Fanout, log *slog.Logger, opts serveOptions) (*server.Server, error) {
	secret, err := db.Secret(ctx)
	if err != nil {
		return nil, err
	}
	library, err := lab.LoadLibrary(scenarios.FS, scenarios.Order())
	if err != nil {
		return nil, fmt.Errorf("load built-in scenarios: %w", err)
	}
	roomStore, _ := db.(store.Rooms)
	var limits server.Limits
	if opts.limits != nil {
		limits = opts.limits.limits(isPostgres(opts.dbPath))
	} else if !isPostgres(opts.dbPath) {
		limits.MaxStoreSize = defaultSQLiteMaxSize
	}
	return server.New(server.Config{Store: db, Library: library, Secret: secret, Logger: log, AccessLog: opts.access,
		BaseURL: opts.baseURL, TrustedProxies: opts.trustedProxies, Rooms: roomStore, Fanout: fanout, Room: opts.rooms,
		Limits: limits})
}

// serveMetrics serves the metrics on addr, a listener of their own so
// that they need not be public; none when addr is empty. The returned
// func stops it.
func serveMetrics(log *slog.Logger, addr string, metrics http.Handler) (func(), error) {
	if addr == "" {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics listener: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout,
		WriteTimeout: writeTimeout, IdleTimeout: idleTimeout, MaxHeaderBytes: 8 << 10,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	go hs.Serve(netutil.LimitListener(ln, metricsMaxConns))
	log.Info("metrics", "addr", ln.Addr().String())
	return func() { hs.Close() }, nil
}

// serveUntilDone serves until ctx ends, then stops accepting connections
// and waits for the requests in flight before returning.
func serveUntilDone(ctx context.Context, log *slog.Logger, hs *http.Server, ln net.Listener) error {
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "grace", shutdownTimeout)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	<-done // http.ErrServerClosed
	log.Info("stopped")
	return nil
}

// envDuration is the duration in the variable name, or fallback when it
// is unset or unreadable.
func envDuration(name string, fallback time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil && d > 0 {
		return d
	}
	return fallback
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}
