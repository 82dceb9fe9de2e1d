package sqlprobe_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"fencelab/lab/probe/sqlprobe"
)

const goodRead = "-- name: read\nSELECT value, token FROM r WHERE name = :resource;\n"

func TestParseMistakes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file string
		line       int
		words      string
	}{
		{"no write", "-- name: reset\nDELETE FROM r;\n" + goodRead, 0, `no "write" block`},
		{"no reset", "-- name: write\nUPDATE r SET value = :value;\n" + goodRead, 0, `no "reset" block`},
		{"unknown parameter", "-- name: reset\nDELETE FROM r;\n-- name: write\nUPDATE r\n SET value = :valeu;\n" + goodRead, 5, "unknown parameter :valeu"},
		{"parameter in reset", "-- name: reset\nDELETE FROM r WHERE name = :value;\n-- name: write\nUPDATE r SET value = :value;\n" + goodRead, 2, "it takes :resource, :scope"},
		{"rows without an outcome", "-- name: reset\nDELETE FROM r;\n-- name: write\nSELECT 'applied' AS result;\n" + goodRead, 4, "returns rows (SELECT 'applied' AS result) but no outcome column"},
		{"read without token", "-- name: reset\nDELETE FROM r;\n-- name: write\nUPDATE r SET value = :value;\n-- name: read\nSELECT value FROM r WHERE name = :resource;\n", 6, "value and token"},
		{"read not a select", "-- name: reset\nDELETE FROM r;\n-- name: write\nUPDATE r SET value = :value;\n-- name: read\nUPDATE r SET value = 'x', token = 1;\n", 6, "value and token"},
		{"check without token", "-- name: reset\nDELETE FROM r;\n-- name: check\nSELECT remembered FROM r;\n-- name: write\nUPDATE r SET value = :value;\n" + goodRead, 4, "column token"},
		{"unknown annotation", "-- name: reset\nDELETE FROM r;\n-- name: write :exce\nUPDATE r SET value = :value;\n", 3, `":exce" after the name is not one of sqlc's commands`},
		{"second block", "-- name: reset\nDELETE FROM r;\n-- name: reset\nDELETE FROM s;\n", 3, "first is at line 1"},
		{"empty block", "-- name: reset\n-- name: write\nUPDATE r SET value = :value;\n" + goodRead, 1, "no statement"},
		{"statement outside", "DELETE FROM r;\n-- name: reset\nDELETE FROM r;\n", 1, "before the first -- name:"},
		{"bad isolation", "-- name: reset\nDELETE FROM r;\n-- name: write\n-- isolation: snapshot\nUPDATE r SET value = :value;\n" + goodRead, 4, `isolation "snapshot"`},
		{"two isolations", "-- name: reset\nDELETE FROM r;\n-- name: check\n-- isolation: serializable\nSELECT token FROM r;\n-- name: write\n-- isolation: read committed\nUPDATE r SET value = :value;\n" + goodRead, 7, "give one level"},
		{"unclosed quote", "-- name: reset\nDELETE FROM r;\n-- name: write\nUPDATE r\n SET value = 'oops;\n" + goodRead, 5, "never closed"},
		{"unclosed comment", "-- name: reset\nDELETE FROM r; /* about\n-- name: write\nUPDATE r SET value = :value;\n" + goodRead, 2, "never closed"},
		{"commit in a block", "-- name: reset\nDELETE FROM r;\n-- name: write\nUPDATE r SET value = :value;\nCOMMIT;\n" + goodRead, 5, "leave transaction control out"},
		{"begin in a block", "-- name: reset\nBEGIN; DELETE FROM r;\n-- name: write\nUPDATE r SET value = :value;\n" + goodRead, 2, "BEGIN"},
		{"too large", "-- name: reset\n" + strings.Repeat("-- padding\n", 100_000), 0, "larger than 1 MiB"},
		{"binary", "-- name: reset\nDELETE\x00 FROM r;\n", 0, "not a text file"},
		{"isolation in read", "-- name: reset\nDELETE FROM r;\n-- name: write\nUPDATE r SET value = :value;\n-- name: read\n-- isolation: serializable\nSELECT value, token FROM r;\n", 6, "only check and write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sqlprobe.Parse("r.sql", strings.NewReader(tt.file))
			var fe *sqlprobe.FileError
			if !errors.As(err, &fe) {
				t.Fatalf("Parse(%q) = %v, want a FileError", tt.file, err)
			}
			if fe.Line != tt.line || !strings.Contains(err.Error(), tt.words) {
				t.Errorf("Parse(%q) = %q (line %d), want line %d saying %q", tt.file, err, fe.Line, tt.line, tt.words)
			}
		})
	}
}

func TestParseSplitsAndBinds(t *testing.T) {
	file := `-- a comment about the file; with a semicolon
-- name: reset
CREATE TABLE IF NOT EXISTS r (name text, value text, token bigint); DELETE FROM r;
-- name: write
-- isolation: Serializable
UPDATE r SET value = ':not; a param', token = :token::bigint /* :nor; this */
 WHERE name = :resource AND "odd;name" IS NULL AND f($$;:x$$) -- :nor this;
   AND token <= :token;
-- name: read
SELECT value, token FROM r WHERE name = :resource
`
	f, err := sqlprobe.Parse("r.sql", strings.NewReader(file))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if n := len(f.Blocks["reset"].Statements); n != 2 {
		t.Errorf("reset has %d statements, want 2", n)
	}
	w := f.Blocks["write"].Statements
	if len(w) != 1 || w[0].Line != 6 {
		t.Fatalf("write = %+v, want one statement at line 6", w)
	}
	if got, want := w[0].Params(), []string{"token", "resource", "token"}; !slices.Equal(got, want) {
		t.Errorf("write params = %q, want %q", got, want)
	}
	if f.Isolation != "serializable" {
		t.Errorf("isolation = %q, want serializable", f.Isolation)
	}
	if w[0].ReturnsRows() || !f.Blocks["read"].Statements[0].ReturnsRows() {
		t.Errorf("ReturnsRows: UPDATE %v, SELECT %v; want false, true", w[0].ReturnsRows(), f.Blocks["read"].Statements[0].ReturnsRows())
	}
}

func TestReturnsRows(t *testing.T) {
	tests := map[string]bool{
		"SELECT 1": true,
		"UPDATE r SET v = 1 RETURNING 'applied' AS outcome":                      true,
		"WITH u AS (UPDATE r SET v = 1 RETURNING 1) SELECT count(*) AS n FROM u": true,
		"WITH s AS (SELECT 1) UPDATE r SET v = 1":                                false,
		"INSERT INTO r SELECT 1":                                                 false,
		"values (1)":                                                             true,
	}
	for q, want := range tests {
		f, err := sqlprobe.Parse("r.sql", strings.NewReader("-- name: reset\nDELETE FROM r;\n-- name: write\nDELETE FROM r;\n"+goodRead+"-- name: other\n"+q+";\n"))
		if err != nil {
			t.Fatalf("Parse(%q): %v", q, err)
		}
		if got := f.Queries[3].Statements[0].ReturnsRows(); got != want {
			t.Errorf("ReturnsRows(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestDSN(t *testing.T) {
	tests := []struct {
		db     string
		engine sqlprobe.Engine
		dsn    string
	}{
		{"postgres://u@h:5432/d?sslmode=disable", sqlprobe.Postgres, "postgres://u@h:5432/d?sslmode=disable"},
		{"mysql://u:p@h:3307/d", sqlprobe.MySQL, "u:p@tcp(h:3307)/d"},
		{"mysql://u@h/d?tls=true", sqlprobe.MySQL, "u@tcp(h:3306)/d?tls=true"},
		{"./r.db", sqlprobe.SQLite, "file:./r.db?_busy_timeout=5000&_txlock=immediate&_journal_mode=WAL"},
		{"file:r.db?_txlock=deferred", sqlprobe.SQLite, "file:r.db?_txlock=deferred&_busy_timeout=5000&_journal_mode=WAL"},
	}
	for _, tt := range tests {
		e, dsn, err := sqlprobe.DSN(tt.db)
		if err != nil || e != tt.engine || dsn != tt.dsn {
			t.Errorf("DSN(%q) = %s, %q, %v; want %s, %q", tt.db, e, dsn, err, tt.engine, tt.dsn)
		}
	}
	for _, bad := range []string{"", "mysql://h", "mongodb://h/d", "mysql://u:secret@/"} {
		_, _, err := sqlprobe.DSN(bad)
		if err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("DSN(%q) = %v, want an error that hides the password", bad, err)
		}
	}
}
