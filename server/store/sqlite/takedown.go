package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"fencelab/server/store"
)

// Hide hides the run with the given id, or replaces the reason of a run
// hidden already; store.ErrNotFound when no run has the id. It writes
// through its own transaction, not the save writer's group: hiding is
// rare, and another process (`fencelab admin`) does it beside a running
// server, waiting its turn on the file's lock.
func (db *DB) Hide(ctx context.Context, id, reason string, at time.Time) error {
	res, err := db.write.ExecContext(ctx, `
		INSERT INTO takedowns (run_id, reason, hidden_at)
		SELECT id, ?, ? FROM runs WHERE id = ?
		ON CONFLICT (run_id) DO UPDATE SET reason = excluded.reason, hidden_at = excluded.hidden_at`,
		reason, at.UTC().Truncate(time.Second).Format(time.RFC3339), id)
	if err != nil {
		return fmt.Errorf("hide run %q: %w", id, storeError(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("hide run %q: %w", id, store.ErrNotFound)
	}
	return nil
}

// Unhide shows the run again; store.ErrNotFound when no run has the id.
func (db *DB) Unhide(ctx context.Context, id string) error {
	if _, err := db.write.ExecContext(ctx, `DELETE FROM takedowns WHERE run_id = ?`, id); err != nil {
		return fmt.Errorf("unhide run %q: %w", id, storeError(err))
	}
	if err := db.exists(ctx, id); err != nil {
		return fmt.Errorf("unhide run %q: %w", id, err)
	}
	return nil
}

// exists is nil when a run has the id, else store.ErrNotFound or the error
// of the query.
func (db *DB) exists(ctx context.Context, id string) error {
	var one int
	err := db.write.QueryRowContext(ctx, `SELECT 1 FROM runs WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return store.ErrNotFound
	}
	return storeError(err)
}

// Hidden returns the reason the run is hidden, and false when it is not;
// store.ErrNotFound when no run has the id (never saved, or purged).
func (db *DB) Hidden(ctx context.Context, id string) (string, bool, error) {
	var reason sql.NullString
	var exists bool
	err := db.read.QueryRowContext(ctx,
		`SELECT (SELECT reason FROM takedowns WHERE run_id = ?1), EXISTS (SELECT 1 FROM runs WHERE id = ?1)`,
		id).Scan(&reason, &exists)
	switch {
	case err != nil:
		return "", false, fmt.Errorf("is run %q hidden: %w", id, storeError(err))
	case reason.Valid:
		return reason.String, true, nil
	case !exists:
		return "", false, fmt.Errorf("is run %q hidden: %w", id, store.ErrNotFound)
	}
	return "", false, nil
}

// Recent lists the n runs saved last, newest first, with their reasons.
func (db *DB) Recent(ctx context.Context, n int) ([]store.Listing, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT r.id, r.title, r.created_at,
			length(CAST(r.scenario AS BLOB)) + length(CAST(r.trace AS BLOB)) + coalesce(length(CAST(r.observed AS BLOB)), 0),
			coalesce(t.reason, '')
		FROM runs r LEFT JOIN takedowns t ON t.run_id = r.id
		ORDER BY r.created_at DESC, r.id LIMIT ?`, n)
	if err != nil {
		return nil, fmt.Errorf("list recent runs: %w", storeError(err))
	}
	defer rows.Close()
	var out []store.Listing
	for rows.Next() {
		var l store.Listing
		var created string
		if err := rows.Scan(&l.ID, &l.Title, &created, &l.Bytes, &l.Reason); err != nil {
			return nil, fmt.Errorf("list recent runs: %w", storeError(err))
		}
		if l.CreatedAt, err = time.Parse(time.RFC3339, created); err != nil {
			return nil, fmt.Errorf("list recent runs: parse created_at: %w", err)
		}
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list recent runs: %w", storeError(err))
	}
	return out, nil
}

// Size is the database file's size as its pages count it: what saves
// grow. The write-ahead log beside it is folded back in at checkpoints and
// left out.
func (db *DB) Size(ctx context.Context) (int64, error) {
	var n int64
	err := db.read.QueryRowContext(ctx, `SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("database size: %w", storeError(err))
	}
	return n, nil
}

// Purge deletes the runs f matches, hidden ones never, in one
// transaction of its own (as Hide, beside a running server); with
// f.DryRun it only lists them.
func (db *DB) Purge(ctx context.Context, f store.PurgeFilter) ([]store.Listing, error) {
	from, to := "", "9999"
	if !f.From.IsZero() {
		from = f.From.UTC().Format(time.RFC3339)
	}
	if !f.To.IsZero() {
		to = f.To.UTC().Format(time.RFC3339)
	}
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("purge runs: %w", storeError(err))
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `
		SELECT r.id, r.title, r.created_at,
			length(CAST(r.scenario AS BLOB)) + length(CAST(r.trace AS BLOB)) + coalesce(length(CAST(r.observed AS BLOB)), 0),
			r.client
		FROM runs r WHERE r.created_at >= ? AND r.created_at < ?
			AND NOT EXISTS (SELECT 1 FROM takedowns t WHERE t.run_id = r.id)
		ORDER BY r.created_at, r.id`, from, to)
	if err != nil {
		return nil, fmt.Errorf("purge runs: %w", storeError(err))
	}
	var out []store.Listing
	for rows.Next() {
		var l store.Listing
		var created string
		if err := rows.Scan(&l.ID, &l.Title, &created, &l.Bytes, &l.Client); err != nil {
			rows.Close()
			return nil, fmt.Errorf("purge runs: %w", storeError(err))
		}
		if l.CreatedAt, err = time.Parse(time.RFC3339, created); err != nil {
			rows.Close()
			return nil, fmt.Errorf("purge runs: parse created_at: %w", err)
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
		if _, err := tx.ExecContext(ctx, `DELETE FROM runs WHERE id = ?`, l.ID); err != nil {
			return nil, fmt.Errorf("purge run %q: %w", l.ID, storeError(err))
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("purge runs: %w", storeError(err))
	}
	return out, nil
}
