package receiver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// SQLite is a Store in a SQLite file. The correct receiver decides and
// applies a write in one conditional statement (see writeFenced), so no
// other write can come between the check and the write, and it keeps the
// remembered token in the same row as the value: it survives a restart.
//
// It opens the database/sql driver "sqlite3" but does not register it: the
// program does (cmd/fencelab imports mattn/go-sqlite3), so that cgo stays
// in the program and the store adapters.
type SQLite struct {
	opt  Options
	path string
	mu   sync.RWMutex // Restart closes and reopens db under the write lock
	db   *sql.DB
}

// sqliteParams: WAL with synchronous NORMAL keeps every acknowledged write
// across a crash or restart of the process (not across a power cut), and
// immediate transactions take the write lock up front.
const sqliteParams = "_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=5000&_txlock=immediate"

const schema = `
CREATE TABLE IF NOT EXISTS resources (
	name       TEXT PRIMARY KEY,
	value      TEXT,
	token      INTEGER,  -- the token of the write that produced value
	remembered INTEGER,  -- the highest token applied or registered
	version    INTEGER NOT NULL DEFAULT 0  -- the writes applied
) STRICT;
CREATE TABLE IF NOT EXISTS ops (
	resource TEXT NOT NULL,
	op       TEXT NOT NULL,
	PRIMARY KEY (resource, op)
) STRICT;
CREATE TABLE IF NOT EXISTS registered (
	id    INTEGER PRIMARY KEY CHECK (id = 1),
	token INTEGER NOT NULL  -- the highest registered token, for resources not yet written
) STRICT;`

// OpenSQLite opens or creates the receiver's database at path.
func OpenSQLite(path string, opt Options) (*SQLite, error) {
	if path == "" {
		return nil, errors.New("open receiver database: empty path")
	}
	s := &SQLite{opt: opt, path: path}
	if err := s.open(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *SQLite) open() error {
	escape := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	db, err := sql.Open("sqlite3", "file:"+escape.Replace(s.path)+"?"+sqliteParams)
	if err != nil {
		return fmt.Errorf("open %s: %w", s.path, err)
	}
	// One connection: SQLite writes one at a time anyway, and queueing
	// here beats "database is locked".
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return fmt.Errorf("create tables in %s: %w", s.path, err)
	}
	if err := addVersion(db); err != nil {
		db.Close()
		return fmt.Errorf("add the version column in %s: %w", s.path, err)
	}
	s.db = db
	return nil
}

// addVersion adds the version column to a file made before the receiver
// counted versions (CREATE TABLE IF NOT EXISTS leaves such a table as it
// is).
func addVersion(db *sql.DB) error {
	var n int
	err := db.QueryRow(`SELECT count(*) FROM pragma_table_info('resources') WHERE name = 'version'`).Scan(&n)
	if err != nil || n > 0 {
		return err
	}
	_, err = db.Exec(`ALTER TABLE resources ADD COLUMN version INTEGER NOT NULL DEFAULT 0`)
	return err
}

// Reset implements Store.
func (s *SQLite) Reset(ctx context.Context) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, err := s.db.ExecContext(ctx, `DELETE FROM resources; DELETE FROM ops; DELETE FROM registered;`)
	return err
}

// Write implements Store.
func (s *SQLite) Write(ctx context.Context, w Write) (Decision, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	switch {
	case s.opt.Policy.ChecksVersion() && s.opt.Flaw == Racy:
		return s.writeRacyConditional(ctx, w)
	case s.opt.Policy.ChecksVersion():
		return s.writeConditional(ctx, w)
	case w.Token == nil:
		return Decision{Outcome: Rejected, Reason: "the write carries no token"}, nil
	case s.opt.Flaw == Racy:
		return s.writeRacy(ctx, w)
	case s.opt.Policy.Idempotent() && w.Op != nil:
		return s.writeIdempotent(ctx, w)
	}
	applied, err := s.writeFenced(ctx, s.db, w)
	if err != nil || applied {
		return Decision{Outcome: Applied}, err
	}
	return s.rejected(ctx, w)
}

// fencedSQL decides and applies in one statement. A new resource is
// inserted when the token passes the registered floor (fenced-register);
// an existing one is updated only when the token passes the token it
// remembers. Zero rows changed means rejected. strictSQL is the same with
// > where fenced has >=: an equal token is rejected.
const fencedSQL = `
INSERT INTO resources (name, value, token, remembered, version)
SELECT ?1, ?2, ?3, ?3, 1
WHERE NOT EXISTS (SELECT 1 FROM registered WHERE token > ?3)
ON CONFLICT (name) DO UPDATE
SET value = excluded.value, token = excluded.token, remembered = excluded.token, version = resources.version + 1
WHERE resources.remembered IS NULL OR resources.remembered <= excluded.token`

const strictSQL = `
INSERT INTO resources (name, value, token, remembered, version)
SELECT ?1, ?2, ?3, ?3, 1
WHERE NOT EXISTS (SELECT 1 FROM registered WHERE token >= ?3)
ON CONFLICT (name) DO UPDATE
SET value = excluded.value, token = excluded.token, remembered = excluded.token, version = resources.version + 1
WHERE resources.remembered IS NULL OR resources.remembered < excluded.token`

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func (s *SQLite) writeFenced(ctx context.Context, db execer, w Write) (bool, error) {
	q := fencedSQL
	if s.opt.Policy.Strict() {
		q = strictSQL
	}
	res, err := db.ExecContext(ctx, q, w.Resource, w.Value, *w.Token)
	if err != nil {
		return false, fmt.Errorf("write %s: %w", w.Resource, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// rejected explains a rejection; the decision was already taken.
func (s *SQLite) rejected(ctx context.Context, w Write) (Decision, error) {
	p, err := s.remembered(ctx, w.Resource)
	if err != nil {
		return Decision{}, err
	}
	_, why := admits(s.opt.Policy.Strict(), w.Token, p)
	if why == "" {
		why = "the token is below the one remembered"
	}
	return Decision{Outcome: Rejected, Reason: why}, nil
}

// remembered is the token the receiver remembers for resource: its own,
// else the registered one; nil when it remembers none.
func (s *SQLite) remembered(ctx context.Context, resource string) (*int64, error) {
	var rem sql.NullInt64
	err := s.db.QueryRowContext(ctx, `
		SELECT coalesce((SELECT remembered FROM resources WHERE name = ?), (SELECT token FROM registered))`,
		resource).Scan(&rem)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", resource, err)
	}
	if !rem.Valid {
		return nil, nil
	}
	return &rem.Int64, nil
}

// writeIdempotent checks the op key and writes in one immediate
// transaction: the write lock is held from the check to the commit.
func (s *SQLite) writeIdempotent(ctx context.Context, w Write) (Decision, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Decision{}, fmt.Errorf("write %s: %w", w.Resource, err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO ops (resource, op) VALUES (?, ?) ON CONFLICT DO NOTHING`, w.Resource, *w.Op)
	if err != nil {
		return Decision{}, fmt.Errorf("write %s: %w", w.Resource, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Decision{Outcome: Suppressed}, nil
	}
	applied, err := s.writeFenced(ctx, tx, w)
	if err != nil {
		return Decision{}, err
	}
	if !applied {
		tx.Rollback() // the op was not applied: forget its key
		return s.rejected(ctx, w)
	}
	return Decision{Outcome: Applied}, tx.Commit()
}

// writeRacy is the mistake: read the remembered token, decide in Go, then
// write in a second statement. Another write can commit in between, and
// this one then overwrites it and lowers the remembered token.
func (s *SQLite) writeRacy(ctx context.Context, w Write) (Decision, error) {
	rem, err := s.remembered(ctx, w.Resource)
	if err != nil {
		return Decision{}, err
	}
	if s.opt.Policy.Idempotent() && w.Op != nil {
		var seen int
		err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM ops WHERE resource = ? AND op = ?`, w.Resource, *w.Op).Scan(&seen)
		if err != nil {
			return Decision{}, fmt.Errorf("read %s: %w", w.Resource, err)
		}
		if seen > 0 {
			return Decision{Outcome: Suppressed}, nil
		}
	}
	if ok, why := admits(s.opt.Policy.Strict(), w.Token, rem); !ok {
		return Decision{Outcome: Rejected, Reason: why}, nil
	}
	if s.opt.Window > 0 {
		time.Sleep(s.opt.Window)
	}
	_, err = s.db.ExecContext(ctx, racySQL, w.Resource, w.Value, *w.Token)
	if err == nil && w.Op != nil {
		_, err = s.db.ExecContext(ctx, `INSERT INTO ops (resource, op) VALUES (?, ?) ON CONFLICT DO NOTHING`, w.Resource, *w.Op)
	}
	if err != nil {
		return Decision{}, fmt.Errorf("write %s: %w", w.Resource, err)
	}
	return Decision{Outcome: Applied}, nil
}

// racySQL writes whatever was decided earlier, unconditionally.
const racySQL = `
INSERT INTO resources (name, value, token, remembered, version) VALUES (?1, ?2, ?3, ?3, 1)
ON CONFLICT (name) DO UPDATE SET value = excluded.value, token = excluded.token, remembered = excluded.token,
	version = resources.version + 1`

// Resource implements Store.
func (s *SQLite) Resource(ctx context.Context, name string) (Holding, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var v int64
	h := Holding{Version: &v}
	err := s.db.QueryRowContext(ctx, `SELECT value, token, version FROM resources WHERE name = ?`, name).Scan(&h.Value, &h.Token, &v)
	if errors.Is(err, sql.ErrNoRows) {
		return Holding{Version: &v}, nil
	}
	if err != nil {
		return Holding{}, fmt.Errorf("read %s: %w", name, err)
	}
	return h, nil
}

// Register implements Store: one statement raises every resource's
// remembered token, a second the floor for resources not yet written,
// both in one transaction.
func (s *SQLite) Register(ctx context.Context, token int64) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE resources SET remembered = max(coalesce(remembered, ?1), ?1)`, token); err != nil {
		return fmt.Errorf("register %d: %w", token, err)
	}
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO registered (id, token) VALUES (1, ?1)
		ON CONFLICT (id) DO UPDATE SET token = max(token, excluded.token)`, token); err != nil {
		return fmt.Errorf("register %d: %w", token, err)
	}
	return tx.Commit()
}

// Restart implements Store: it closes the database and opens it again.
// The forgetful receiver behaves as if it kept the remembered token in
// memory: it comes back without it.
func (s *SQLite) Restart(ctx context.Context, resource string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close %s: %w", s.path, err)
	}
	if err := s.open(); err != nil {
		return err
	}
	if s.opt.Flaw != Forgetful {
		return nil
	}
	forget := `UPDATE resources SET remembered = NULL WHERE name = ?`
	if s.opt.Policy.ChecksVersion() {
		forget = `UPDATE resources SET remembered = NULL, version = 0 WHERE name = ?` // as if kept in memory
	}
	_, err := s.db.ExecContext(ctx, forget, resource)
	return err
}

// Close implements Store.
func (s *SQLite) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.db.Close()
}
