package storetest

import (
	"context"
	"crypto/rand"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The variables that name a PostgreSQL server for tests, and that make
// the tests fail rather than skip without one (CI sets it).
const (
	PostgresEnv      = "FENCELAB_TEST_POSTGRES"
	PostgresRequired = "FENCELAB_POSTGRES_TESTS"
)

// PostgresURL is the URL of the PostgreSQL server for tests, from
// FENCELAB_TEST_POSTGRES. Without one the test skips, unless
// FENCELAB_POSTGRES_TESTS=required: then it fails. -short skips too.
func PostgresURL(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("real PostgreSQL: not under -short")
	}
	u := os.Getenv(PostgresEnv)
	if u == "" {
		if os.Getenv(PostgresRequired) == "required" {
			t.Fatalf("%s=required but %s names no PostgreSQL server", PostgresRequired, PostgresEnv)
		}
		t.Skipf("real PostgreSQL: set %s=postgres://... to run", PostgresEnv)
	}
	return u
}

// FreshSchema creates an empty schema on the server at base and returns
// base with search_path set to it, and its host:port; the schema is dropped
// at the end of the test. A schema per test keeps tests apart on one
// database without needing the right to create databases.
func FreshSchema(t testing.TB, base string) (dsn, hostPort string) {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", PostgresEnv, err)
	}
	// A pool, not one connection: base may carry pgxpool's settings.
	conn, err := pgxpool.New(t.Context(), base)
	if err != nil {
		t.Fatalf("connect to %s: %v", u.Redacted(), err)
	}
	defer conn.Close()
	schema := "fencelab_test_" + strings.ToLower(rand.Text()[:12])
	if _, err := conn.Exec(t.Context(), "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		conn, err := pgxpool.New(context.Background(), base)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close()
		conn.Exec(context.Background(), "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	port := u.Port()
	if port == "" {
		port = "5432"
	}
	return u.String(), net.JoinHostPort(u.Hostname(), port)
}

// ThroughProxy is dsn with its host and port replaced by the proxy's.
func ThroughProxy(t testing.TB, dsn string, p *Proxy) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = p.Addr()
	return u.String()
}
