package server

import (
	"context"
	"errors"
	"time"
)

// Run is a saved run: the canonical scenario JSON, the trace JSON the engine
// gave for it, and the engine version that gave it.
type Run struct {
	ID            string
	Title         string
	Scenario      []byte
	Trace         []byte
	EngineVersion string
	CreatedAt     time.Time
}

// Store keeps saved runs. Runs are immutable: there is no update or delete.
type Store interface {
	// SaveRun stores r unless a run with its ID exists, and returns the
	// stored row either way.
	SaveRun(ctx context.Context, r Run) (Run, error)
	// Run returns the run with the given ID, or an error wrapping ErrNotFound.
	Run(ctx context.Context, id string) (Run, error)
}

// ErrNotFound is what a Store returns, wrapped, for an unknown run ID.
var ErrNotFound = errors.New("run not found")
