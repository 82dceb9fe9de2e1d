// Package store holds what the lab keeps: saved runs, live rooms with
// their questions and answers, the interfaces the adapters beneath it
// (sqlite, postgres) implement, and the one error type they return. It
// imports nothing of the web, so the adapters build without Echo or templ.
package store

import (
	"context"
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
	// Client is who saved it, as the server's budgets count clients: an
	// address, or an IPv6 /64 ("2001:db8::/64"), for `fencelab admin
	// purge`. It is written, never read back into a Run; empty for runs
	// saved before it was kept.
	Client string
}

// Runs keeps saved runs and the link secret. Runs are immutable: there is
// no update or delete. The adapters (store/sqlite, store/postgres) return
// the errors of errors.go, wrapped, so that callers test with errors.Is or
// CodeOf and never see a driver's error type.
type Runs interface {
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
