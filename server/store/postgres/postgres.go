// Package postgres stores saved runs and the link secret in PostgreSQL, so
// that several servers share them.
package postgres

import (
	"context"
	"embed"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"fencelab/server/store"
	"fencelab/server/store/internal/migrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrationLock is the key of the advisory lock that servers starting at
// once take in turn, so each migration runs once ("fencelab" in ASCII).
const migrationLock int64 = 0x66656e63656c6162

// Bounds on waiting for the database: a server whose database is gone
// answers 503 soon instead of holding requests until the client gives up.
const (
	connectTimeout = 5 * time.Second
	opTimeout      = 10 * time.Second
)

// defaultMaxConns is the pool's size unless the URL sets pool_max_conns:
// concurrent commits share PostgreSQL's WAL flushes, so more connections
// than CPUs save more per second (pgx's default is 4, or the CPUs).
const defaultMaxConns = 16

// startupWait is how long Open waits for a database that cannot be reached
// yet, as when servers and database start together; after that Open fails
// and the server's supervisor decides.
var startupWait = 30 * time.Second

// DB is a PostgreSQL store: a pool of connections, refilled by pgx when
// connections break, so the store recovers by itself when the database
// comes back.
type DB struct {
	pool *pgxpool.Pool
}

// Open connects to the database at url (postgres://...), and applies any
// migrations not yet applied. Pool settings may be given in the url
// (pool_max_conns, ...), as pgxpool documents.
func Open(ctx context.Context, url string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err) // pgx leaves any password out
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = defaultMaxConns
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = connectTimeout
	}
	where := fmt.Sprintf("postgres %s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", where, err)
	}
	if err := migrateWhenReachable(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("migrate %s: %w", where, storeError(err))
	}
	return &DB{pool: pool}, nil
}

// migrateWhenReachable migrates, trying again for up to startupWait while
// the database cannot be reached.
func migrateWhenReachable(ctx context.Context, pool *pgxpool.Pool) error {
	deadline := time.Now().Add(startupWait)
	pause := 250 * time.Millisecond
	for {
		err := migrateDB(ctx, pool)
		if err == nil || !unavailable(err) || time.Now().Add(pause).After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
		pause = min(2*pause, 2*time.Second)
	}
}

// Close closes every connection of the pool.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

// Ping reports whether the database can be written now: a standby that
// only reads is as good as unreachable for saves.
func (db *DB) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	var standby bool
	if err := db.pool.QueryRow(ctx, `SELECT pg_is_in_recovery()`).Scan(&standby); err != nil {
		return fmt.Errorf("ping: %w", storeError(err))
	}
	if standby {
		return fmt.Errorf("ping: %w: the database is a read-only standby", store.ErrUnavailable)
	}
	return nil
}

// migrateDB creates the migrations table and applies the embedded
// migrations (package migrate), each in its own transaction. Servers
// starting at once wait for each other on an advisory lock, held by one
// session and released by PostgreSQL if that session dies.
func migrateDB(ctx context.Context, pool *pgxpool.Pool) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrationLock); err != nil {
		return fmt.Errorf("take the migration lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationLock)

	const create = `CREATE TABLE IF NOT EXISTS fencelab_migrations (name text PRIMARY KEY)`
	if _, err := conn.Exec(ctx, create); err != nil {
		return fmt.Errorf("create migrations table: %w", err)
	}
	return migrate.Run(ctx, migrationFS, func(ctx context.Context) (migrate.Tx, error) {
		tx, err := conn.Begin(ctx)
		return pgTx{tx}, err
	})
}

// pgTx is a migration's transaction on PostgreSQL.
type pgTx struct{ pgx.Tx }

func (tx pgTx) Applied(ctx context.Context, name string) (bool, error) {
	var done bool
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM fencelab_migrations WHERE name = $1)`, name).Scan(&done)
	return done, err
}

func (tx pgTx) Apply(ctx context.Context, name, body string) error {
	if _, err := tx.Exec(ctx, body); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `INSERT INTO fencelab_migrations (name) VALUES ($1)`, name)
	return err
}
