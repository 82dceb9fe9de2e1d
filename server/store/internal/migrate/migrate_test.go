package migrate

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// memory is a database that records migrations in a list; a transaction
// keeps its work until Commit.
type memory struct {
	recorded []string
	ran      []string
	fail     string // the body whose Apply fails
}

type memTx struct {
	db           *memory
	name, body   string
	applied, end bool
}

func (db *memory) begin(context.Context) (Tx, error) { return &memTx{db: db}, nil }

func (tx *memTx) Applied(_ context.Context, name string) (bool, error) {
	return slices.Contains(tx.db.recorded, name), nil
}

func (tx *memTx) Apply(_ context.Context, name, body string) error {
	if body == tx.db.fail {
		return errors.New("syntax error")
	}
	tx.name, tx.body, tx.applied = name, body, true
	return nil
}

func (tx *memTx) Commit(context.Context) error {
	if !tx.end && tx.applied {
		tx.db.recorded = append(tx.db.recorded, tx.name)
		tx.db.ran = append(tx.db.ran, tx.body)
	}
	tx.end = true
	return nil
}

func (tx *memTx) Rollback(context.Context) error { tx.end = true; return nil }

var files = fstest.MapFS{
	"migrations/0002_rooms.sql": {Data: []byte("B")},
	"migrations/0001_runs.sql":  {Data: []byte("A")},
	"migrations/0010_later.sql": {Data: []byte("C")},
	"migrations/README":         {Data: []byte("not a migration")},
	"other/0000_first.sql":      {Data: []byte("not here")},
}

// TestRunInOrderOnce: every migration once, in name order, and a second
// run applies nothing.
func TestRunInOrderOnce(t *testing.T) {
	db := &memory{}
	for range 2 {
		if err := Run(t.Context(), files, db.begin); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"A", "B", "C"}; !slices.Equal(db.ran, want) {
		t.Errorf("ran %q, want %q", db.ran, want)
	}
	want := []string{"migrations/0001_runs.sql", "migrations/0002_rooms.sql", "migrations/0010_later.sql"}
	if !slices.Equal(db.recorded, want) {
		t.Errorf("recorded %q, want %q", db.recorded, want)
	}
}

// TestRunStopsAtAFailure: a failing migration is named, not recorded, and
// the ones after it do not run; those before it stay.
func TestRunStopsAtAFailure(t *testing.T) {
	db := &memory{fail: "B"}
	err := Run(t.Context(), files, db.begin)
	if err == nil || !strings.Contains(err.Error(), "migration migrations/0002_rooms.sql: syntax error") {
		t.Fatalf("Run = %v, want the failing migration named", err)
	}
	if want := []string{"migrations/0001_runs.sql"}; !slices.Equal(db.recorded, want) {
		t.Errorf("recorded %q, want %q", db.recorded, want)
	}
}

// TestRunBeginFails: an error beginning the transaction stops the loop.
func TestRunBeginFails(t *testing.T) {
	boom := errors.New("locked")
	err := Run(t.Context(), files, func(context.Context) (Tx, error) { return nil, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("Run = %v, want %v", err, boom)
	}
}
