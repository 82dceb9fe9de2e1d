package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"fencelab/server/store"
)

// Run is the server's saved run.
type Run = store.Run

// SaveRun stores r unless a run with its ID exists, and returns the stored
// row: the existing one in that case, since a saved run is a permanent link
// and never changes. A zero CreatedAt is set to the current time.
//
// Saves are committed in groups by one writer (see writer): SaveRun returns
// only once r's transaction is durable. If ctx ends while r still waits in
// the queue, r is not stored and SaveRun returns ctx's error; once the
// writer has taken r, SaveRun waits for the commit whatever ctx does.
func (db *DB) SaveRun(ctx context.Context, r Run) (Run, error) {
	if r.CreatedAt.IsZero() {
		r.CreatedAt = time.Now()
	}
	return db.writer.submit(ctx, r)
}

// Run returns the run with the given ID, or an error wrapping ErrNotFound.
func (db *DB) Run(ctx context.Context, id string) (Run, error) {
	r, err := queryRun(ctx, db.read, id)
	if err != nil {
		return Run{}, fmt.Errorf("read run %q: %w", id, storeError(err))
	}
	return r, nil
}

// queryer is what *sql.DB and *sql.Tx share, so one query serves the read
// pool and the writer's transaction.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func queryRun(ctx context.Context, q queryer, id string) (Run, error) {
	var r Run
	var created string
	err := q.QueryRowContext(ctx, `
		SELECT id, title, scenario, trace, engine_version, created_at, observed
		FROM runs WHERE id = ?`, id).
		Scan(&r.ID, &r.Title, &r.Scenario, &r.Trace, &r.EngineVersion, &created, &r.Observed)
	if errors.Is(err, sql.ErrNoRows) {
		return Run{}, store.ErrNotFound
	}
	if err != nil {
		return Run{}, err
	}
	if r.CreatedAt, err = time.Parse(time.RFC3339, created); err != nil {
		return Run{}, fmt.Errorf("parse created_at: %w", err)
	}
	return r, nil
}

// nullText binds JSON as TEXT, and nil as NULL.
func nullText(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}
