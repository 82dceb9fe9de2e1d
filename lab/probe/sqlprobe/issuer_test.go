package sqlprobe_test

import (
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fencelab/lab/probe/sqlprobe"
)

const issuerTail = "-- name: renew\nUPDATE l SET n = n WHERE name = :lock AND owner = :owner;\n-- name: release\nUPDATE l SET owner = NULL WHERE name = :lock;\n"

// TestParseIssuerMistakes: an issuer's file keeps the first version's
// rules, and every mistake is found with its line before anything runs.
func TestParseIssuerMistakes(t *testing.T) {
	t.Parallel()
	acquire := "-- name: acquire\nUPDATE l SET n = n + 1 WHERE name = :lock RETURNING n AS token;\n"
	tests := []struct {
		name, file string
		line       int
		words      string
	}{
		{"no acquire", issuerTail, 0, `no "acquire" block`},
		{"no release", acquire + "-- name: renew\nSELECT 1;\n", 0, `no "release" block`},
		{"unknown block", acquire + issuerTail + "-- name: write\nSELECT 1;\n", 7, `unknown block "write": use reset, acquire, renew, release`},
		{"second block", acquire + issuerTail + "-- name: Acquire\nSELECT 1;\n", 7, "first is at line 1"},
		{"unknown parameter", acquire + "-- name: renew\nUPDATE l\n SET n = n WHERE name = :resource;\n-- name: release\nSELECT 1;\n", 5, "block renew: unknown parameter :resource; it takes :lock, :owner, :token, :ttl_ms, :now_ms"},
		{"a parameter in reset", "-- name: reset\nDELETE FROM l WHERE name = :lock;\n" + acquire + issuerTail, 2, "block reset: unknown parameter :lock; it takes none"},
		{"token in acquire", "-- name: acquire\nUPDATE l SET n = :token RETURNING n AS token;\n" + issuerTail, 2, "unknown parameter :token"},
		{"acquire without token", "-- name: acquire\nINSERT INTO l VALUES (:lock);\nUPDATE l SET n = n + 1;\n" + issuerTail, 3, "block acquire: its last statement must return a column token"},
		{"isolation outside acquire", acquire + "-- name: renew\n-- isolation: serializable\nSELECT 1;\n-- name: release\nSELECT 1;\n", 4, "only acquire takes one"},
		{"isolation before a block", "-- isolation: serializable\n" + acquire + issuerTail, 1, "inside block acquire"},
		{"a role map", "-- fencelab: acquire=take\n" + acquire + issuerTail, 1, "takes no role map"},
		{"refused-on", "-- name: acquire\n-- refused-on: 23505\nSELECT n AS token FROM l;\n" + issuerTail, 2, "takes no role map, parameter map or refusals"},
		{"commit", acquire + issuerTail + "-- name: reset\nDELETE FROM l;\nCOMMIT;\n", 9, "leave transaction control out"},
		{"empty block", "-- name: reset\n" + acquire + issuerTail, 1, "block reset has no statement"},
		{"unclosed quote", acquire + "-- name: renew\nSELECT 'x;\n-- name: release\nSELECT 1;\n", 4, "never closed"},
		{"statement outside", "SELECT 1;\n" + acquire + issuerTail, 1, "before the first -- name:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sqlprobe.ParseIssuer("lease.sql", strings.NewReader(tt.file))
			var fe *sqlprobe.FileError
			if !errors.As(err, &fe) {
				t.Fatalf("ParseIssuer: %v; want a *FileError", err)
			}
			if fe.Line != tt.line || !strings.Contains(fe.Msg, tt.words) {
				t.Errorf("got line %d %q; want line %d and %q", fe.Line, fe.Msg, tt.line, tt.words)
			}
		})
	}
}

// TestParseIssuerExamples: the lease tables of docs/issuer parse, and a
// receiver's statement file is no issuer's.
func TestParseIssuerExamples(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"postgres-lease.sql", "mysql-lease.sql", "sqlite-lease.sql"} {
		f := readIssuer(t, name)
		for _, b := range []string{"reset", "acquire", "renew", "release"} {
			if f.Blocks[b] == nil || len(f.Blocks[b].Statements) == 0 {
				t.Errorf("%s: block %s missing or empty", name, b)
			}
		}
	}
	f, err := sqlprobe.Parse("r.sql", strings.NewReader("-- name: reset\nDELETE FROM r;\n-- name: write\nUPDATE r SET value = :value;\n"+goodRead))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sqlprobe.OpenIssuer(context.Background(), f, filepath.Join(t.TempDir(), "l.db"), sqlprobe.Options{}); err == nil || !strings.Contains(err.Error(), "not read as an issuer's file") {
		t.Errorf("OpenIssuer of a receiver's file: %v", err)
	}
}

func readIssuer(t *testing.T, name string) *sqlprobe.File {
	t.Helper()
	in, err := os.Open(filepath.Join("..", "..", "..", "docs", "issuer", name))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	f, err := sqlprobe.ParseIssuer(name, in)
	if err != nil {
		t.Fatalf("ParseIssuer: %v", err)
	}
	return f
}

// TestIssuerLeaseTable runs each engine's lease table of docs/issuer:
// one holder at a time, renewals and releases by the holder only, and a
// greater token after the lease ends.
func TestIssuerLeaseTable(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		engine sqlprobe.Engine
		file   string
	}{{sqlprobe.SQLite, "sqlite-lease.sql"}, {sqlprobe.Postgres, "postgres-lease.sql"}, {sqlprobe.MySQL, "mysql-lease.sql"}} {
		t.Run(string(tt.engine), func(t *testing.T) {
			t.Parallel()
			db := database(t, tt.engine)
			ctx := context.Background()
			is, err := sqlprobe.OpenIssuer(ctx, readIssuer(t, tt.file), db, sqlprobe.Options{Retries: sqlprobe.DefaultRetries})
			if err != nil {
				t.Fatal(err)
			}
			defer is.Close()
			if is.Engine() != tt.engine || is.Version(ctx) == "" {
				t.Errorf("engine %s, version %q", is.Engine(), is.Version(ctx))
			}
			if err := is.Reset(ctx); err != nil {
				t.Fatal(err)
			}
			lock := "test-" + rand.Text()[:10] // the MariaDB database is shared
			now := time.Now().UnixMilli()
			t1, err := is.Acquire(ctx, lock, "a", 60_000, now)
			if err != nil || t1 == nil {
				t.Fatalf("first acquire: %v, %v; want a token", t1, err)
			}
			if t2, err := is.Acquire(ctx, lock, "b", 60_000, now); err != nil || t2 != nil {
				t.Fatalf("acquire while a holds it: %v, %v; want refused", t2, err)
			}
			if ok, err := is.Renew(ctx, lock, "b", *t1, 60_000, now); err != nil || ok {
				t.Errorf("renew by b: %v, %v; want lost", ok, err)
			}
			if ok, err := is.Renew(ctx, lock, "a", *t1, 60_000, now+1); err != nil || !ok {
				t.Errorf("renew by a: %v, %v; want renewed", ok, err)
			}
			if ok, err := is.Release(ctx, lock, "a", *t1, now+2); err != nil || !ok {
				t.Errorf("release by a: %v, %v; want released", ok, err)
			}
			if ok, err := is.Renew(ctx, lock, "a", *t1, 60_000, now+3); err != nil || ok {
				t.Errorf("renew after release: %v, %v; want lost", ok, err)
			}
			t3, err := is.Acquire(ctx, lock, "b", 1, now+4)
			if err != nil || t3 == nil || *t3 <= *t1 {
				t.Fatalf("acquire after release: %v, %v; want a token above %d", t3, err, *t1)
			}
			time.Sleep(20 * time.Millisecond) // PostgreSQL's file keeps the server's clock
			t4, err := is.Acquire(ctx, lock, "c", 60_000, time.Now().UnixMilli())
			if err != nil || t4 == nil || *t4 <= *t3 {
				t.Fatalf("acquire after b's lease ended: %v, %v; want a token above %d", t4, err, *t3)
			}
		})
	}
}
