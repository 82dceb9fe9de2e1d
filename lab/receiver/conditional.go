package receiver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// conditionalSQL is cas in one statement: the write is inserted or
// updated only when the version it expects (?4; NULL: no condition) is
// the resource's version, 0 for a resource not yet written. Zero rows
// changed means stale. Tokens and op keys are kept as written, never
// checked.
const conditionalSQL = `
INSERT INTO resources (name, value, token, version)
SELECT ?1, ?2, ?3, 1
WHERE ?4 IS NULL OR ?4 = coalesce((SELECT version FROM resources WHERE name = ?1), 0)
ON CONFLICT (name) DO UPDATE
SET value = excluded.value, token = excluded.token, version = resources.version + 1
WHERE ?4 IS NULL OR resources.version = ?4`

// writeConditional applies w when its version condition holds, in one
// statement: no other write can land between the check and the write.
func (s *SQLite) writeConditional(ctx context.Context, w Write) (Decision, error) {
	res, err := s.db.ExecContext(ctx, conditionalSQL, w.Resource, w.Value, w.Token, w.ExpectVersion)
	if err != nil {
		return Decision{}, fmt.Errorf("write %s: %w", w.Resource, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return Decision{Outcome: Applied}, err
	}
	version, err := s.version(ctx, w.Resource)
	if err != nil {
		return Decision{}, err
	}
	_, why := matches(w.ExpectVersion, version)
	if why == "" {
		why = "stale: the resource moved on since the write's version"
	}
	return Decision{Outcome: Rejected, Reason: why}, nil
}

// version reads a resource's version, 0 before any write.
func (s *SQLite) version(ctx context.Context, name string) (int64, error) {
	var v int64
	err := s.db.QueryRowContext(ctx, `SELECT version FROM resources WHERE name = ?`, name).Scan(&v)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("read %s: %w", name, err)
	}
	return v, nil
}

// writeRacyConditional is the mistake under cas: read the version, decide
// in Go, then write in a second statement. Two writers that read the same
// version can both pass the check, and the second overwrites the first.
func (s *SQLite) writeRacyConditional(ctx context.Context, w Write) (Decision, error) {
	version, err := s.version(ctx, w.Resource)
	if err != nil {
		return Decision{}, err
	}
	if ok, why := matches(w.ExpectVersion, version); !ok {
		return Decision{Outcome: Rejected, Reason: why}, nil
	}
	if s.opt.Window > 0 {
		time.Sleep(s.opt.Window)
	}
	if _, err := s.db.ExecContext(ctx, racySQL, w.Resource, w.Value, w.Token); err != nil {
		return Decision{}, fmt.Errorf("write %s: %w", w.Resource, err)
	}
	return Decision{Outcome: Applied}, nil
}
