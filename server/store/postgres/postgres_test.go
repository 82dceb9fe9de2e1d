package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"fencelab/server/store"
	"fencelab/server/store/storetest"
)

func TestStoreError(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want error // nil: neither ErrUnavailable nor ErrFull
	}{
		{"disk full", &pgconn.PgError{Code: "53100"}, store.ErrFull},
		{"too many connections", &pgconn.PgError{Code: "53300"}, store.ErrUnavailable},
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, store.ErrUnavailable},
		{"cannot connect now", &pgconn.PgError{Code: "57P03"}, store.ErrUnavailable},
		{"connection failure", &pgconn.PgError{Code: "08006"}, store.ErrUnavailable},
		{"read-only standby", &pgconn.PgError{Code: "25006"}, store.ErrUnavailable},
		{"connection dropped", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), store.ErrUnavailable},
		{"refused", &net.OpError{Op: "dial", Err: errors.New("connection refused")}, store.ErrUnavailable},
		{"timed out", context.DeadlineExceeded, store.ErrUnavailable},
		{"syntax error", &pgconn.PgError{Code: "42601"}, nil},
		{"check violation", &pgconn.PgError{Code: "23514"}, nil},
		{"client gave up", context.Canceled, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := storeError(tt.err)
			if !errors.Is(got, tt.err) {
				t.Errorf("storeError(%v) = %v, lost the driver's error", tt.err, got)
			}
			for _, kind := range []error{store.ErrUnavailable, store.ErrFull} {
				if errors.Is(got, kind) != (kind == tt.want) {
					t.Errorf("storeError(%v) = %v; errors.Is(_, %v) = %v, want %v",
						tt.err, got, kind, errors.Is(got, kind), kind == tt.want)
				}
			}
		})
	}
}

func TestOpenBadURL(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out a second of refused connections; runs without -short")
	}
	saved := startupWait
	startupWait = time.Second
	t.Cleanup(func() { startupWait = saved })
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	tests := []struct {
		name, url string
	}{
		{"not a URL", "postgres://user:s3cret@host:notaport/db"},
		{"nobody listens", "postgres://user:s3cret@127.0.0.1:1/db?sslmode=disable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := Open(ctx, tt.url)
			if err == nil {
				db.Close()
				t.Fatalf("Open(%q) error = nil, want an error", tt.url)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("Open(%q) error shows the password: %v", tt.url, err)
			}
		})
	}
}

// TestOpenWaitsForTheDatabase starts a store while its database cannot be
// reached, and lets the database through a moment later: Open waits
// instead of failing.
func TestOpenWaitsForTheDatabase(t *testing.T) {
	dsn, hostPort := storetest.FreshSchema(t, storetest.PostgresURL(t))
	proxy := storetest.NewProxy(t, hostPort)
	proxy.Cut()
	time.AfterFunc(time.Second, proxy.Resume)
	start := time.Now()
	db, err := Open(t.Context(), storetest.ThroughProxy(t, dsn, proxy))
	if err != nil {
		t.Fatalf("Open while the database comes up: %v, want nil", err)
	}
	db.Close()
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("Open returned after %v, before the database could be reached", waited)
	}
}

// TestMigrationsRunOnce opens one schema several times and finds each
// migration recorded once, and the tables of the last one there.
func TestMigrationsRunOnce(t *testing.T) {
	dsn, _ := storetest.FreshSchema(t, storetest.PostgresURL(t))
	files, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		db, err := Open(t.Context(), dsn)
		if err != nil {
			t.Fatalf("Open #%d: %v", i+1, err)
		}
		var n int
		err = db.pool.QueryRow(t.Context(), `SELECT COUNT(*) FROM fencelab_migrations`).Scan(&n)
		db.Close()
		if err != nil || n != len(files) {
			t.Errorf("after Open #%d: %d migrations recorded, %v; want %d, nil", i+1, n, err, len(files))
		}
	}
}
