package store

import "errors"

// Code says what went wrong, in the store's terms. The server answers each
// code with one HTTP status, decided in one table (server/errors.go).
type Code int

// The codes, one for each way a store call can fail that is not a bug.
const (
	// NotFound: no run has the requested ID.
	NotFound Code = iota + 1
	// Unavailable: the database cannot be reached or is busy for now, and
	// a later retry may succeed; nothing was written.
	Unavailable
	// Full: the database has no room left for the write; nothing was
	// written.
	Full
	// NoRoom: no room has the requested ID, or no room not yet expired has
	// the code.
	NoRoom
	// CodeTaken: a room not yet expired has the code asked for.
	CodeTaken
	// Answered: the student has answered the question at this step already.
	Answered
	// NoQuestion: no question is open at this step.
	NoQuestion
	// Gone: the run was taken down by the lab's operators; the error's
	// Message is the reason, as the public reads it.
	Gone
	// NoHandover: the room offers no hand-over with this code (wrong, or spent).
	NoHandover
)

// Error is the one error type of the store: a code and its words. The
// adapters wrap the values below with the operation that failed
// (`load run %s: %w`), so callers test with errors.Is or CodeOf and never
// see a driver's error type.
type Error struct {
	Code    Code
	Message string
}

func (e *Error) Error() string { return e.Message }

// Is matches any *Error with the same code, so that an adapter may make
// its own with a sharper message.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// The errors a store returns, wrapped. Anything else is a bug or an
// unforeseen failure, answered with a 500.
var (
	ErrNotFound    = &Error{NotFound, "run not found"}
	ErrUnavailable = &Error{Unavailable, "database unavailable"}
	ErrFull        = &Error{Full, "database full"}
	ErrNoRoom      = &Error{NoRoom, "room not found"}
	ErrCodeTaken   = &Error{CodeTaken, "room code in use"}
	ErrAnswered    = &Error{Answered, "already answered"}
	ErrNoQuestion  = &Error{NoQuestion, "no open question at this step"}
	ErrGone        = &Error{Gone, "run taken down"}
	ErrNoHandover  = &Error{NoHandover, "no hand-over with this code"}
)

// CodeOf is the code of the first *Error in err's chain, or 0 when there
// is none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}
