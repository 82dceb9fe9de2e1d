package store

import (
	"context"
	"time"
)

// Listing is a saved run as an operator sees it in a list: enough to pick
// one to hide, without its scenario or trace.
type Listing struct {
	ID        string
	Title     string
	CreatedAt time.Time
	Bytes     int64  // the stored scenario, trace and observation
	Reason    string // why it is hidden; empty while it is shown
}

// Takedowns hides saved runs from the public. A hidden run keeps its row
// (its id is content-addressed, so the same scenario saved again is the
// same hidden run) and every server on the database sees it hidden at its
// next request: Hidden is a lookup in a small indexed table, cheap enough
// to make before serving any page of a run, cached ones included.
type Takedowns interface {
	// Hide hides the run with the given id, giving reason, the words the
	// public reads; hiding a hidden run replaces its reason. ErrNotFound
	// when no run has the id.
	Hide(ctx context.Context, id, reason string, at time.Time) error
	// Unhide shows the run again; a run that is not hidden stays as it
	// is. ErrNotFound when no run has the id.
	Unhide(ctx context.Context, id string) error
	// Hidden returns the reason the run is hidden, and false when it is
	// not (or does not exist).
	Hidden(ctx context.Context, id string) (reason string, hidden bool, err error)
	// Recent lists the n runs saved last, newest first, hidden ones too.
	Recent(ctx context.Context, n int) ([]Listing, error)
}

// Sizer measures the database, so that a server can refuse saves before
// the disk is full, and report how full it is.
type Sizer interface {
	// Size is the database's size in bytes as it grows with saves.
	Size(ctx context.Context) (int64, error)
}
