package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"fencelab/server/store"
)

// Hide hides the run with the given id, or replaces the reason of a run
// hidden already; store.ErrNotFound when no run has the id.
func (db *DB) Hide(ctx context.Context, id, reason string, at time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	tag, err := db.pool.Exec(ctx, `
		INSERT INTO takedowns (run_id, reason, hidden_at)
		SELECT id, $1, $2 FROM runs WHERE id = $3
		ON CONFLICT (run_id) DO UPDATE SET reason = excluded.reason, hidden_at = excluded.hidden_at`,
		reason, at.UTC().Truncate(time.Second), id)
	if err != nil {
		return fmt.Errorf("hide run %q: %w", id, storeError(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("hide run %q: %w", id, store.ErrNotFound)
	}
	return nil
}

// Unhide shows the run again; store.ErrNotFound when no run has the id.
func (db *DB) Unhide(ctx context.Context, id string) error {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	if _, err := db.pool.Exec(ctx, `DELETE FROM takedowns WHERE run_id = $1`, id); err != nil {
		return fmt.Errorf("unhide run %q: %w", id, storeError(err))
	}
	var exists bool
	if err := db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM runs WHERE id = $1)`, id).Scan(&exists); err != nil {
		return fmt.Errorf("unhide run %q: %w", id, storeError(err))
	}
	if !exists {
		return fmt.Errorf("unhide run %q: %w", id, store.ErrNotFound)
	}
	return nil
}

// Hidden returns the reason the run is hidden, and false when it is not;
// store.ErrNotFound when no run has the id (never saved, or purged).
func (db *DB) Hidden(ctx context.Context, id string) (string, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	var reason *string
	var exists bool
	err := db.pool.QueryRow(ctx,
		`SELECT (SELECT reason FROM takedowns WHERE run_id = $1), EXISTS (SELECT 1 FROM runs WHERE id = $1)`,
		id).Scan(&reason, &exists)
	switch {
	case err != nil:
		return "", false, fmt.Errorf("is run %q hidden: %w", id, storeError(err))
	case reason != nil:
		return *reason, true, nil
	case !exists:
		return "", false, fmt.Errorf("is run %q hidden: %w", id, store.ErrNotFound)
	}
	return "", false, nil
}

// Recent lists the n runs saved last, newest first, with their reasons.
func (db *DB) Recent(ctx context.Context, n int) ([]store.Listing, error) {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	rows, err := db.pool.Query(ctx, `
		SELECT r.id, r.title, r.created_at,
			octet_length(r.scenario) + octet_length(r.trace) + coalesce(octet_length(r.observed), 0),
			coalesce(t.reason, '')
		FROM runs r LEFT JOIN takedowns t ON t.run_id = r.id
		ORDER BY r.created_at DESC, r.id LIMIT $1`, n)
	if err != nil {
		return nil, fmt.Errorf("list recent runs: %w", storeError(err))
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Listing, error) {
		var l store.Listing
		err := row.Scan(&l.ID, &l.Title, &l.CreatedAt, &l.Bytes, &l.Reason)
		l.CreatedAt = l.CreatedAt.UTC()
		return l, err
	})
	if err != nil {
		return nil, fmt.Errorf("list recent runs: %w", storeError(err))
	}
	return out, nil
}

// Size is the whole database's size on disk, as PostgreSQL counts it.
func (db *DB) Size(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	var n int64
	if err := db.pool.QueryRow(ctx, `SELECT pg_database_size(current_database())`).Scan(&n); err != nil {
		return 0, fmt.Errorf("database size: %w", storeError(err))
	}
	return n, nil
}

// Purge deletes the runs f matches, hidden ones never, in one
// transaction; with f.DryRun it only lists them.
func (db *DB) Purge(ctx context.Context, f store.PurgeFilter) ([]store.Listing, error) {
	from, to := time.Unix(0, 0), time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	if !f.From.IsZero() {
		from = f.From
	}
	if !f.To.IsZero() {
		to = f.To
	}
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("purge runs: %w", storeError(err))
	}
	defer tx.Rollback(ctx)
	rows, err := tx.Query(ctx, `
		SELECT r.id, r.title, r.created_at,
			octet_length(r.scenario) + octet_length(r.trace) + coalesce(octet_length(r.observed), 0),
			r.client
		FROM runs r WHERE r.created_at >= $1 AND r.created_at < $2
			AND NOT EXISTS (SELECT 1 FROM takedowns t WHERE t.run_id = r.id)
		ORDER BY r.created_at, r.id`, from, to)
	if err != nil {
		return nil, fmt.Errorf("purge runs: %w", storeError(err))
	}
	var out []store.Listing
	for rows.Next() {
		var l store.Listing
		if err := rows.Scan(&l.ID, &l.Title, &l.CreatedAt, &l.Bytes, &l.Client); err != nil {
			rows.Close()
			return nil, fmt.Errorf("purge runs: %w", storeError(err))
		}
		if f.Matches(l.Client) {
			out = append(out, l)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("purge runs: %w", storeError(err))
	}
	if f.DryRun {
		return out, nil
	}
	for _, l := range out {
		if _, err := tx.Exec(ctx, `DELETE FROM runs WHERE id = $1`, l.ID); err != nil {
			return nil, fmt.Errorf("purge run %q: %w", l.ID, storeError(err))
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("purge runs: %w", storeError(err))
	}
	return out, nil
}
