package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"fencelab/server/store"
)

// SaveRun stores r unless a run with its ID exists, and returns the stored
// row: the existing one in that case, since a saved run is a permanent link
// and never changes. Two servers saving one ID at once both get the row
// that won. A zero CreatedAt is set to the current time.
//
// The save is idempotent, so a save that fails on a broken connection
// (after a database restart, say) is tried once more on a fresh one.
func (db *DB) SaveRun(ctx context.Context, r store.Run) (store.Run, error) {
	if r.CreatedAt.IsZero() {
		r.CreatedAt = time.Now()
	}
	r.CreatedAt = r.CreatedAt.UTC().Truncate(time.Second)
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	stored, err := db.saveRun(ctx, r)
	if err != nil && unavailable(err) && ctx.Err() == nil {
		stored, err = db.saveRun(ctx, r)
	}
	if err != nil {
		return store.Run{}, fmt.Errorf("save run %q: %w", r.ID, storeError(err))
	}
	return stored, nil
}

// saveRun inserts, and reads the row that won when the insert did
// nothing. Each statement commits on its own: under READ COMMITTED the
// second sees a row another server committed after the first began.
func (db *DB) saveRun(ctx context.Context, r store.Run) (store.Run, error) {
	stored, err := scanRun(db.pool.QueryRow(ctx, `
		INSERT INTO runs (id, title, scenario, trace, engine_version, created_at, observed, client)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (id) DO NOTHING
		RETURNING `+runColumns,
		r.ID, r.Title, string(r.Scenario), string(r.Trace), r.EngineVersion, r.CreatedAt, nullText(r.Observed), r.Client))
	if errors.Is(err, store.ErrNotFound) {
		return db.queryRun(ctx, r.ID)
	}
	return stored, err
}

// Run returns the run with the given ID, or an error wrapping
// store.ErrNotFound.
func (db *DB) Run(ctx context.Context, id string) (store.Run, error) {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	r, err := db.queryRun(ctx, id)
	if err != nil {
		return store.Run{}, fmt.Errorf("read run %q: %w", id, storeError(err))
	}
	return r, nil
}

const runColumns = `id, title, scenario, trace, engine_version, created_at, observed`

func (db *DB) queryRun(ctx context.Context, id string) (store.Run, error) {
	return scanRun(db.pool.QueryRow(ctx, `SELECT `+runColumns+` FROM runs WHERE id = $1`, id))
}

func scanRun(row pgx.Row) (store.Run, error) {
	var r store.Run
	var scenario, trace string
	var observed *string
	err := row.Scan(&r.ID, &r.Title, &scenario, &trace, &r.EngineVersion, &r.CreatedAt, &observed)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Run{}, store.ErrNotFound
	}
	if err != nil {
		return store.Run{}, err
	}
	r.Scenario, r.Trace, r.CreatedAt = []byte(scenario), []byte(trace), r.CreatedAt.UTC()
	if observed != nil {
		r.Observed = []byte(*observed)
	}
	return r, nil
}

// nullText binds JSON as text, and nil as NULL.
func nullText(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}
