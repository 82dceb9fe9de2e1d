package probe

import (
	"context"
	"errors"
)

// Receiver is what the probe plays writes at: a service speaking the HTTP
// contract (Client), or the statements a service runs against its
// database (package sqlprobe). Every method is safe for concurrent use:
// the concurrent mode calls Write from every worker at once.
type Receiver interface {
	// Target names the receiver in reports: a base URL, or a statement
	// file and the database it ran against.
	Target() string
	// Reset empties the receiver: no values, no tokens, no op keys.
	Reset(ctx context.Context) error
	// Write applies or refuses one write. An Answer whose Outcome is
	// GaveUp is neither applied nor rejected.
	Write(ctx context.Context, w WriteRequest) (Answer, error)
	// Resource reads what the named resource holds.
	Resource(ctx context.Context, name string) (Holding, error)
	// Grant registers a granted token (fenced-register), or returns
	// ErrNotSupported.
	Grant(ctx context.Context, scope string, token int64) error
	// Restart restarts the receiver, or returns ErrNotSupported.
	Restart(ctx context.Context, resource string) error
}

// Target implements Receiver: the base URL.
func (c *Client) Target() string { return c.base }

// GaveUp is the outcome of a write the receiver kept failing to decide
// (a database that kept reporting serialization failures past every
// retry): neither applied nor rejected.
const GaveUp = "gave up"

// BrokenError is a receiver that answers but cannot be asked further:
// a statement the database refuses, a statement file that does not fit
// what the database returns. Like UnreachableError it ends the probe
// with exit code 2.
type BrokenError struct {
	Where string // "block write, statement 2 (UPDATE …)"
	Err   error
}

func (e *BrokenError) Error() string { return e.Where + ": " + e.Err.Error() }

func (e *BrokenError) Unwrap() error { return e.Err }

// stops reports whether err ends a probe at once, exit code 2.
func stops(err error) bool {
	var ue *UnreachableError
	var be *BrokenError
	return errors.As(err, &ue) || errors.As(err, &be)
}
