package store

import (
	"context"
	"net/netip"
	"strings"
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
	Client    string // who saved it (Run.Client); empty when not kept
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
	// shown; ErrNotFound when no run has the id (never saved, or purged),
	// so that a page of a purged run kept in a server's memory is not
	// served either.
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

// Purger deletes saved runs in bulk, after a flood: `fencelab admin
// purge`. Hidden runs are never purged, so that their takedowns stay as
// they are (and the same scenario saved again is still hidden).
type Purger interface {
	// Purge deletes the runs f matches, or with f.DryRun only lists
	// them, and returns them oldest first.
	Purge(ctx context.Context, f PurgeFilter) ([]Listing, error)
}

// PurgeFilter picks the runs to purge: saved by a client within Within
// (invalid: any client; a run with no client kept matches only then),
// at or after From and before To (zero: no bound). At least one of them
// must be set.
type PurgeFilter struct {
	Within   netip.Prefix
	From, To time.Time
	DryRun   bool
}

// Matches says whether a run saved by client (Run.Client) is within
// f.Within: its address, or its whole /64, inside the prefix.
func (f PurgeFilter) Matches(client string) bool {
	if !f.Within.IsValid() {
		return true
	}
	var p netip.Prefix
	var err error
	if strings.Contains(client, "/") {
		p, err = netip.ParsePrefix(client)
	} else {
		var a netip.Addr
		a, err = netip.ParseAddr(client)
		p = netip.PrefixFrom(a, a.BitLen())
	}
	if err != nil {
		return false
	}
	within := f.Within.Masked()
	return p.Bits() >= within.Bits() && within.Contains(p.Addr())
}
