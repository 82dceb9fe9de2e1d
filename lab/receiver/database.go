package receiver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"fencelab/lab/probe/sqlprobe"
)

// Database is a Store in PostgreSQL, MySQL or MariaDB. The correct
// receiver decides each write in one transaction that first locks the
// floor row (so writes and grants take turns), then the resource's row
// with SELECT … FOR UPDATE, decides in Go and writes: check and write
// cannot be split by another write. The racy flaw reads without the
// locks. The statements are in DatabaseStatements.
//
// Like SQLite it opens drivers by name ("pgx", "mysql") but does not
// register them: the program does.
type Database struct {
	opt    Options
	engine sqlprobe.Engine
	dsn    string
	mu     sync.RWMutex // Restart closes and reopens db under the write lock
	db     *sql.DB
}

// DatabaseStatements are the statements a Database runs, with ? for
// parameters ($1, $2 … on PostgreSQL), keyed by what they do.
var DatabaseStatements = map[string]string{
	"lock floor":    `SELECT token FROM fencelab_receiver_floor WHERE id = 1 FOR UPDATE`,
	"lock resource": `SELECT remembered FROM fencelab_receiver_resources WHERE name = ? FOR UPDATE`,
	"seen op":       `SELECT count(*) FROM fencelab_receiver_ops WHERE resource = ? AND op = ?`,
	"write":         `UPDATE fencelab_receiver_resources SET value = ?, token = ?, remembered = ? WHERE name = ?`,
	"register":      `UPDATE fencelab_receiver_resources SET remembered = GREATEST(COALESCE(remembered, ?), ?)`,
	"raise floor":   `UPDATE fencelab_receiver_floor SET token = GREATEST(COALESCE(token, ?), ?) WHERE id = 1`,
	"read":          `SELECT value, token FROM fencelab_receiver_resources WHERE name = ?`,
	"forget":        `UPDATE fencelab_receiver_resources SET remembered = NULL WHERE name = ?`,
}

// engineStatements differ by engine: the schema, creating a row and an
// op key when missing.
var engineStatements = map[sqlprobe.Engine]map[string]string{
	sqlprobe.Postgres: {
		"schema": `CREATE TABLE IF NOT EXISTS fencelab_receiver_resources (name text PRIMARY KEY, value text, token bigint, remembered bigint);
CREATE TABLE IF NOT EXISTS fencelab_receiver_ops (resource text, op text, PRIMARY KEY (resource, op));
CREATE TABLE IF NOT EXISTS fencelab_receiver_floor (id int PRIMARY KEY CHECK (id = 1), token bigint);
INSERT INTO fencelab_receiver_floor (id) VALUES (1) ON CONFLICT (id) DO NOTHING`,
		"create row": `INSERT INTO fencelab_receiver_resources (name) VALUES (?) ON CONFLICT (name) DO NOTHING`,
		"add op":     `INSERT INTO fencelab_receiver_ops (resource, op) VALUES (?, ?) ON CONFLICT DO NOTHING`,
		"reset":      `TRUNCATE fencelab_receiver_resources, fencelab_receiver_ops; UPDATE fencelab_receiver_floor SET token = NULL`,
	},
	sqlprobe.MySQL: {
		"schema": `CREATE TABLE IF NOT EXISTS fencelab_receiver_resources ` +
			`(name VARCHAR(255) PRIMARY KEY, value TEXT, token BIGINT, remembered BIGINT) ENGINE=InnoDB;
CREATE TABLE IF NOT EXISTS fencelab_receiver_ops (resource VARCHAR(255), op VARCHAR(255), PRIMARY KEY (resource, op)) ENGINE=InnoDB;
CREATE TABLE IF NOT EXISTS fencelab_receiver_floor (id INT PRIMARY KEY, token BIGINT) ENGINE=InnoDB;
INSERT IGNORE INTO fencelab_receiver_floor (id) VALUES (1)`,
		"create row": `INSERT IGNORE INTO fencelab_receiver_resources (name) VALUES (?)`,
		"add op":     `INSERT IGNORE INTO fencelab_receiver_ops (resource, op) VALUES (?, ?)`,
		"reset": `DELETE FROM fencelab_receiver_resources; DELETE FROM fencelab_receiver_ops; ` +
			`UPDATE fencelab_receiver_floor SET token = NULL`,
	},
}

// OpenDatabase connects to postgres://… or mysql://user:pass@host:port/db
// and creates the receiver's tables when missing.
func OpenDatabase(ctx context.Context, url string, opt Options) (*Database, error) {
	engine, dsn, err := sqlprobe.DSN(url)
	if err != nil || engine == sqlprobe.SQLite {
		return nil, fmt.Errorf("--store %q: use postgres://… or mysql://user:pass@host:port/db", sqlprobe.Redact(url))
	}
	if opt.Policy.ChecksVersion() {
		return nil, fmt.Errorf("--store %s: the PostgreSQL and MySQL receiver implements the fenced family "+
			"only; --policy %s runs on --store memory or sqlite", engine, opt.Policy)
	}
	d := &Database{opt: opt, engine: engine, dsn: dsn}
	if err := d.open(ctx); err != nil {
		return nil, err
	}
	if err := d.exec(ctx, d.db, engineStatements[engine]["schema"]); err != nil {
		d.db.Close()
		return nil, fmt.Errorf("create tables in %s: %w", sqlprobe.Redact(url), err)
	}
	return d, nil
}

func (d *Database) open(ctx context.Context) error {
	db, err := sql.Open(sqlprobe.Drivers[d.engine], d.dsn)
	if err != nil {
		return err
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return fmt.Errorf("connect to the %s database: %w", d.engine, err)
	}
	d.db = db
	return nil
}

type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// exec runs statements separated by ";\n" or "; " one by one.
func (d *Database) exec(ctx context.Context, q querier, stmts string, args ...any) error {
	for _, s := range strings.Split(stmts, ";") {
		if strings.TrimSpace(s) == "" {
			continue
		}
		if _, err := q.ExecContext(ctx, d.rebind(s), args...); err != nil {
			return err
		}
	}
	return nil
}

// rebind turns ? into $1, $2 … for PostgreSQL.
func (d *Database) rebind(q string) string {
	if d.engine != sqlprobe.Postgres {
		return q
	}
	var b strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// stmt is a statement in the engine's placeholders; the racy flaw drops
// the locks and reads what others may be changing.
func (d *Database) stmt(name string) string {
	q, ok := DatabaseStatements[name]
	if !ok {
		q = engineStatements[d.engine][name]
	}
	if d.opt.Flaw == Racy {
		q = strings.TrimSuffix(q, " FOR UPDATE")
	}
	return d.rebind(q)
}

// Reset implements Store.
func (d *Database) Reset(ctx context.Context) error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.exec(ctx, d.db, engineStatements[d.engine]["reset"])
}

// Write implements Store: one transaction, retried on a deadlock.
func (d *Database) Write(ctx context.Context, w Write) (Decision, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if w.Token == nil {
		return Decision{Outcome: Rejected, Reason: "the write carries no token"}, nil
	}
	var dec Decision
	err := d.retry(ctx, func(tx *sql.Tx) error {
		var err error
		dec, err = d.decide(ctx, tx, w)
		return err
	})
	return dec, err
}

// decide locks, checks the op key and the token, and writes.
func (d *Database) decide(ctx context.Context, tx *sql.Tx, w Write) (Decision, error) {
	var floor, rem sql.NullInt64
	if err := tx.QueryRowContext(ctx, d.stmt("lock floor")).Scan(&floor); err != nil {
		return Decision{}, err
	}
	if _, err := tx.ExecContext(ctx, d.stmt("create row"), w.Resource); err != nil {
		return Decision{}, err
	}
	if err := tx.QueryRowContext(ctx, d.stmt("lock resource"), w.Resource).Scan(&rem); err != nil {
		return Decision{}, err
	}
	if w.Op != nil && d.opt.Policy.Idempotent() {
		var seen int
		if err := tx.QueryRowContext(ctx, d.stmt("seen op"), w.Resource, *w.Op).Scan(&seen); err != nil || seen > 0 {
			return Decision{Outcome: Suppressed}, err
		}
	}
	remembered := nullable(rem)
	if remembered == nil {
		remembered = nullable(floor)
	}
	if ok, why := admits(d.opt.Policy.Strict(), w.Token, remembered); !ok {
		return Decision{Outcome: Rejected, Reason: why}, nil
	}
	if d.opt.Window > 0 {
		time.Sleep(d.opt.Window)
	}
	if _, err := tx.ExecContext(ctx, d.stmt("write"), w.Value, *w.Token, *w.Token, w.Resource); err != nil {
		return Decision{}, err
	}
	if w.Op != nil {
		if _, err := tx.ExecContext(ctx, d.stmt("add op"), w.Resource, *w.Op); err != nil {
			return Decision{}, err
		}
	}
	return Decision{Outcome: Applied}, nil
}

func nullable(n sql.NullInt64) *int64 {
	if !n.Valid {
		return nil
	}
	return &n.Int64
}

// retry runs fn in a transaction and commits, again after a deadlock or
// serialization failure (the racy flaw's unlocked reads can deadlock).
func (d *Database) retry(ctx context.Context, fn func(*sql.Tx) error) error {
	var err error
	for try := range 20 {
		if try > 0 {
			time.Sleep(time.Duration(try) * time.Millisecond)
		}
		if err = d.once(ctx, fn); err == nil || !transient(err) {
			return err
		}
	}
	return err
}

func (d *Database) once(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// transient: SQLSTATE 40001/40P01, MySQL deadlock 1213 or lock wait 1205.
func transient(err error) bool {
	var coded interface{ SQLState() string }
	if errors.As(err, &coded) {
		return coded.SQLState() == "40001" || coded.SQLState() == "40P01"
	}
	return strings.HasPrefix(err.Error(), "Error 1213") || strings.HasPrefix(err.Error(), "Error 1205")
}

// Resource implements Store.
func (d *Database) Resource(ctx context.Context, name string) (Holding, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	var v sql.NullString
	var t sql.NullInt64
	err := d.db.QueryRowContext(ctx, d.stmt("read"), name).Scan(&v, &t)
	if errors.Is(err, sql.ErrNoRows) {
		return Holding{}, nil
	}
	if err != nil {
		return Holding{}, fmt.Errorf("read %s: %w", name, err)
	}
	var h Holding
	if v.Valid {
		h.Value = &v.String
	}
	h.Token = nullable(t)
	return h, nil
}

// Register implements Store: the floor first (writes lock it too), then
// every resource's remembered token.
func (d *Database) Register(ctx context.Context, token int64) error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.retry(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, d.stmt("raise floor"), token, token); err != nil {
			return fmt.Errorf("register %d: %w", token, err)
		}
		_, err := tx.ExecContext(ctx, d.stmt("register"), token, token)
		return err
	})
}

// Restart implements Store: every connection is closed and opened again;
// the forgetful flaw then forgets the resource's remembered token.
func (d *Database) Restart(ctx context.Context, resource string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.db.Close()
	if err := d.open(ctx); err != nil {
		return err
	}
	if d.opt.Flaw != Forgetful {
		return nil
	}
	_, err := d.db.ExecContext(ctx, d.stmt("forget"), resource)
	return err
}

// Close implements Store.
func (d *Database) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.db.Close()
}
