package server

import (
	"context"
	"errors"
	"time"
)

// Run is a saved run: the canonical scenario JSON, the trace JSON the engine
// gave for it, and the engine version that gave it.
type Run struct {
	ID       string
	Title    string
	Scenario []byte // canonical scenario JSON
	Trace    []byte // trace JSON
	// Observed is what `fencelab probe` saw a real receiver do on this
	// scenario (JSON), or nil for a run of the model alone.
	Observed      []byte
	EngineVersion string
	CreatedAt     time.Time // to the second; a zero value is set to now on save
}

// Store keeps saved runs and the link secret. Runs are immutable: there is
// no update or delete. The adapters (server/sqlite, server/postgres) return
// the errors below, wrapped, so that callers test with errors.Is and never
// see a driver's error type.
type Store interface {
	// SaveRun stores r unless a run with its ID exists, and returns the
	// stored row either way: the first one saved under an ID wins, also
	// when several servers save it at once.
	SaveRun(ctx context.Context, r Run) (Run, error)
	// Run returns the run with the given ID, or an error wrapping ErrNotFound.
	Run(ctx context.Context, id string) (Run, error)
	// Secret returns the 32-byte secret that keys run ids, creating it on
	// first use. Every server on one database gets the same bytes, so a
	// scenario gets the same link whichever server saves it.
	Secret(ctx context.Context) ([]byte, error)
	// Ping reports whether the store can serve reads and writes now.
	Ping(ctx context.Context) error
}

// The store's errors. Anything else a Store returns is a bug or an
// unforeseen failure, answered with a 500.
var (
	// ErrNotFound: no run has the requested ID (404).
	ErrNotFound = errors.New("run not found")
	// ErrUnavailable: the database cannot be reached or is busy for now,
	// and a later retry may succeed; nothing was written (503).
	ErrUnavailable = errors.New("database unavailable")
	// ErrFull: the database has no room left for the write; nothing was
	// written (507).
	ErrFull = errors.New("database full")
)
