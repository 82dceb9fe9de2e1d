package store

import (
	"context"
	"time"
)

// Room is a live room: a presentation that students follow on their
// phones, answering its questions. Code is what they type and is unique
// among the rooms not yet expired; ID is permanent and names the summary.
type Room struct {
	ID         string
	Code       string
	SecretHash string // hex SHA-256 of the presenter's secret
	Page       string // "/scenarios/NAME" or "/r/ID"
	Title      string
	Policies   []string // the table's
	Diagram    string   // the policy the questions are asked under
	Step       int
	CreatedAt  time.Time
	ExpiresAt  time.Time // the room ends then, or earlier when its presenter ends it
	// ShowNames puts the students' names in the shareable summary; off,
	// only the presenter (who holds the secret) sees them.
	ShowNames bool
	// Countdown is how long each question takes answers, in seconds; 0:
	// until the presenter reveals it.
	Countdown int
	// HandoverHash is the hex SHA-256 of the one-time code that hands the
	// room to another browser; empty when none is offered.
	HandoverHash string
}

// RoomOptions are the presenter's choices for a room, changed while it runs.
type RoomOptions struct {
	ShowNames bool
	Countdown int // seconds, 0 for none
}

// Question is a room's question at one step, with the answers so far.
type Question struct {
	Step     int
	Ask      string
	Answer   string // "accepted" or "rejected"
	OpenedAt time.Time
	Revealed bool
	Accepted int
	Rejected int
}

// Answer is one student's answer to the question at one step.
type Answer struct {
	Step       int
	Student    string // an id the student's browser keeps in a cookie
	Name       string // optional, as typed
	Guess      string // "accepted" or "rejected"
	AnsweredAt time.Time
}

// Rooms keeps live rooms, their questions and answers. It is separate
// from Runs: both adapters implement both; a store without rooms would
// leave the server's Config.Rooms nil, and the lab would offer no live room. Every server
// sharing one database shares its rooms: the store is the room's truth,
// and a Fanout only rings the bell.
type Rooms interface {
	// CreateRoom stores r, or fails with ErrCodeTaken when a room not yet
	// expired has its code.
	CreateRoom(ctx context.Context, r Room) error
	// Room returns the room with the given ID, expired or not (ErrNoRoom).
	Room(ctx context.Context, id string) (Room, error)
	// RoomByCode returns the room with the code that has not expired at now (ErrNoRoom).
	RoomByCode(ctx context.Context, code string, now time.Time) (Room, error)
	// MoveRoom sets the room's step and, when q is not nil, opens the
	// question at that step unless it was asked before.
	MoveRoom(ctx context.Context, id string, step int, q *Question) error
	// Reveal closes the question at step to answers (ErrNoQuestion).
	Reveal(ctx context.Context, id string, step int, at time.Time) error
	// Answer records a student's answer: ErrAnswered for a second one,
	// ErrNoQuestion when the question is not open.
	Answer(ctx context.Context, roomID string, a Answer) error
	// Questions returns the room's questions in step order, with counts.
	Questions(ctx context.Context, id string) ([]Question, error)
	// Answers returns the room's answers by step; with a student, only theirs.
	Answers(ctx context.Context, id, student string) ([]Answer, error)
	// EndRoom ends the room at at (it takes no more phones or answers),
	// unless it has expired before (ErrNoRoom).
	EndRoom(ctx context.Context, id string, at time.Time) error
	// SetRoomOptions stores the presenter's choices (ErrNoRoom).
	SetRoomOptions(ctx context.Context, id string, o RoomOptions) error
	// OfferHandover keeps the hash of a new one-time hand-over code,
	// replacing any earlier one (ErrNoRoom).
	OfferHandover(ctx context.Context, id, codeHash string) error
	// TakeHandover spends the hand-over code with hash codeHash: the room's
	// secret hash becomes secretHash, and the code is gone. ErrNoHandover
	// when no such code is offered, spent or not.
	TakeHandover(ctx context.Context, id, codeHash, secretHash string) error
}
