// Package sqlite stores saved runs and server settings in a SQLite file.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	_ "github.com/mattn/go-sqlite3" // registers the "sqlite3" driver

	"fencelab/server/store/internal/migrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// writeParams go in every writer DSN so each pooled connection gets them:
// FULL keeps a returned link durable across power loss, and immediate
// transactions take the write lock up front instead of failing mid-way.
// A variable so that the tests can wait less for a locked file.
var writeParams = "_journal_mode=WAL&_synchronous=FULL&_busy_timeout=5000&_foreign_keys=1&_txlock=immediate"

// readParams omit the journal mode and transaction lock: a read-only
// connection may not change them and never writes.
const readParams = "mode=ro&_busy_timeout=5000&_foreign_keys=1"

// DB is a SQLite store with one writer connection, so writes queue instead
// of failing with "database is locked", and a small read-only pool that
// reads alongside it thanks to WAL.
type DB struct {
	write  *sql.DB
	read   *sql.DB
	writer *writer
}

// Open opens or creates the database file at path and applies any
// migrations not yet applied. A new file is created readable by its owner
// only: it holds the secret that keys the run ids.
func Open(path string) (*DB, error) {
	if path == "" {
		return nil, errors.New("open database: empty path")
	}
	if err := checkDir(path); err != nil {
		return nil, err
	}
	write, err := sql.Open("sqlite3", dsn(path, writeParams))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	if err := migrateDB(context.Background(), write); err != nil {
		write.Close()
		return nil, fmt.Errorf("migrate %s: %w", path, err)
	}
	if err := ownerOnly(path); err != nil {
		write.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := checkWritable(context.Background(), write); err != nil {
		write.Close()
		return nil, fmt.Errorf("open %s for writing: %w", path, err)
	}
	// Opened only now: a read-only connection cannot switch the file to WAL.
	read, err := sql.Open("sqlite3", dsn(path, readParams))
	if err == nil {
		read.SetMaxOpenConns(4)
		read.SetMaxIdleConns(4)
		err = read.Ping()
	}
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("open %s read-only: %w", path, err)
	}
	id, err := newIdentity(path)
	if err != nil {
		read.Close()
		write.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return &DB{write: write, read: read, writer: newWriter(write, id.check)}, nil
}

// checkDir checks that the file's directory takes new files: SQLite keeps
// its write-ahead log beside the database, and without this check a
// read-only directory fails later with a puzzling "no such file or
// directory".
func checkDir(path string) error {
	dir := filepath.Dir(path)
	probe, err := os.CreateTemp(dir, ".fencelab-probe-*")
	if err != nil {
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
			return fmt.Errorf("open %s: the directory %s is not writable: the database and its write-ahead log need to be created there", path, dir)
		}
		return fmt.Errorf("open %s: %w", path, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// ownerOnly makes the database and its write-ahead files readable by their
// owner only, before the secret is written: the file holds the secret that
// keys the run ids. SQLite creates files with the process's umask, and
// later write-ahead files with the database's mode. (Creating the file
// ourselves first made concurrent first opens fail with "database is
// locked".)
func ownerOnly(path string) error {
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(p, fi.Mode().Perm()&0o700); err != nil {
				return err
			}
		}
	}
	return nil
}

// dsn builds a URI filename, escaping the characters that SQLite's URI
// parser would otherwise take as the start of the query or fragment.
func dsn(path, params string) string {
	escape := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return "file:" + escape.Replace(path) + "?" + params
}

// ObserveGroups has f told the size of each group of saves committed
// together, for the server's metrics. f must be quick: the writer waits.
func (db *DB) ObserveGroups(f func(size int)) {
	db.writer.observe.Store(&f)
}

// Close answers the saves already queued, then closes both connection pools.
func (db *DB) Close() error {
	db.writer.close()
	return errors.Join(db.read.Close(), db.write.Close())
}

// checkWritable fails when SQLite opened the file read-only, which it does
// silently when the process may not write it: better to refuse to start
// than to fail every save. The write transaction is rolled back unused.
func checkWritable(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, `DELETE FROM migrations WHERE name IS NULL`)
	return err
}

// migrateDB creates the migrations table and applies the embedded
// migrations (package migrate), each in its own transaction.
func migrateDB(ctx context.Context, db *sql.DB) error {
	// In a transaction, so that it begins IMMEDIATE and waits its turn:
	// a bare CREATE of servers starting together on a new file can fail
	// at once with "database is locked" instead.
	const create = `CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY) STRICT`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("create migrations table: %w", err)
	}
	if _, err := tx.ExecContext(ctx, create); err != nil {
		tx.Rollback()
		return fmt.Errorf("create migrations table: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("create migrations table: %w", err)
	}
	return migrate.Run(ctx, migrationFS, func(ctx context.Context) (migrate.Tx, error) {
		tx, err := db.BeginTx(ctx, nil)
		return sqlTx{tx}, err
	})
}

// sqlTx is a migration's transaction on SQLite.
type sqlTx struct{ *sql.Tx }

func (tx sqlTx) Applied(ctx context.Context, name string) (bool, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM migrations WHERE name = ?`, name).Scan(&n)
	return n > 0, err
}

func (tx sqlTx) Apply(ctx context.Context, name, body string) error {
	if _, err := tx.ExecContext(ctx, body); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO migrations (name) VALUES (?)`, name)
	return err
}

func (tx sqlTx) Commit(context.Context) error   { return tx.Tx.Commit() }
func (tx sqlTx) Rollback(context.Context) error { return tx.Tx.Rollback() }

// Ping reports whether the database can be written now: the file at the
// path is still the one opened, and it takes the write lock and gives it
// back unused. A file deleted or replaced, locked by another process or on
// a failing disk answers with store.ErrUnavailable, as saves would.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.writer.check(); err != nil { // the file was deleted or replaced
		return fmt.Errorf("ping: %w", storeError(err))
	}
	if err := checkWritable(ctx, db.write); err != nil {
		return fmt.Errorf("ping: %w", storeError(err))
	}
	return nil
}
