package sqlprobe_test

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fencelab/lab"
	"fencelab/lab/probe"
	"fencelab/lab/probe/sqlprobe"
)

const okReset = "-- name: reset\nCREATE TABLE IF NOT EXISTS r (name TEXT PRIMARY KEY, value TEXT, token INTEGER);\nDELETE FROM r;\n"
const okWrite = "-- name: write\nINSERT INTO r (name, value, token) VALUES (:resource, :value, :token)\n ON CONFLICT (name) DO UPDATE SET value = excluded.value, token = excluded.token WHERE r.token <= excluded.token;\n"
const okRead = "-- name: read\nSELECT value, token FROM r WHERE name = :resource;\n"

// sqliteProber parses file and opens it on a fresh SQLite file.
func sqliteProber(t *testing.T, file string, policy lab.Policy) (*probe.Prober, string) {
	t.Helper()
	f, err := sqlprobe.Parse("r.sql", strings.NewReader(file))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	path := filepath.Join(t.TempDir(), "r.db")
	r, err := sqlprobe.Open(t.Context(), f, path, sqlprobe.Options{Policy: policy, Retries: sqlprobe.DefaultRetries})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return &probe.Prober{Client: r, Policy: policy, Remember: lab.Durable}, path
}

func TestStatementErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file string
		words      []string
	}{
		{"missing table", okReset + "-- name: write\nUPDATE nosuch SET value = :value WHERE name = :resource;\n" + okRead,
			[]string{"step 6", "block write, statement 1 (line 5", "no such table: nosuch"}},
		{"read's columns renamed", okReset + okWrite + "-- name: read\nSELECT value AS val, token AS tok FROM r WHERE name = :resource;\n",
			[]string{"step 6", "block read", "returns columns [val tok]; block read must return value and token"}},
		{"an outcome outside the contract", okReset + "-- name: write\nSELECT 'maybe' AS outcome;\n" + okRead,
			[]string{"step 6", "block write", `returned outcome maybe; use applied, suppressed or rejected`}},
		{"a token that is not a number", okReset + okWrite + "-- name: read\nSELECT value, 'forty-two' AS token FROM r WHERE name = :resource;\n",
			[]string{"block read", `token "forty-two" is not an integer`}},
		{"a reset that fails", "-- name: reset\nDROP TABLE nosuch;\n" + okWrite + okRead,
			[]string{"block reset", "no such table: nosuch"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := sqliteProber(t, tt.file, lab.Fenced)
			_, err := p.Sequential(t.Context(), scenario(t, "../../../scenarios/paused-worker.json"))
			var be *probe.BrokenError
			if !errors.As(err, &be) {
				t.Fatalf("Sequential = %v, want a BrokenError", err)
			}
			for _, w := range tt.words {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Sequential error %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

func TestUnreachable(t *testing.T) {
	f, err := sqlprobe.Parse("r.sql", strings.NewReader(okReset+okWrite+okRead))
	if err != nil {
		t.Fatal(err)
	}
	for _, db := range []string{
		"postgres://postgres@127.0.0.1:1/fencelab?sslmode=disable&connect_timeout=2",
		"mysql://u:secret@127.0.0.1:1/fencelab?timeout=2s",
		filepath.Join(t.TempDir(), "no", "such", "dir", "r.db"),
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		_, err := sqlprobe.Open(ctx, f, db, sqlprobe.Options{Policy: lab.Fenced})
		cancel()
		var ue *probe.UnreachableError
		if !errors.As(err, &ue) || strings.Contains(err.Error(), "secret") {
			t.Errorf("Open(%s) = %v, want an UnreachableError without the password", sqlprobe.Redact(db), err)
		}
	}
}

// TestLeavesNothing: after every mode, the database holds what reset
// creates and nothing else.
func TestLeavesNothing(t *testing.T) {
	t.Parallel()
	p, path := sqliteProber(t, okReset+okWrite+okRead, lab.Fenced)
	ctx := t.Context()
	s := scenario(t, "../../../scenarios/paused-worker.json")
	if _, err := p.Sequential(ctx, s); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Orderings(ctx, s, probe.OrderingsOptions{N: 3, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	d := 200 * time.Millisecond
	if testing.Short() {
		d = 30 * time.Millisecond // what matters is that the mode ran and cleaned up
	}
	if _, err := p.Concurrent(ctx, probe.ConcurrentOptions{Workers: 2, Duration: d}); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT name FROM sqlite_master ORDER BY name")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		names = append(names, n)
	}
	if want := []string{"r", "sqlite_autoindex_r_1"}; !slices.Equal(names, want) {
		t.Errorf("after the probe the database holds %q, want %q (what reset creates)", names, want)
	}
}

func TestGrantAndRestart(t *testing.T) {
	t.Parallel()
	p, _ := sqliteProber(t, okReset+okWrite+okRead, lab.FencedRegister)
	res, err := p.Sequential(t.Context(), scenario(t, "../../../scenarios/register-on-acquire.json"))
	if err != nil || res.Verdict != probe.NotTestable {
		t.Errorf("register-on-acquire without a grant block = %v, %v; want not testable", res, err)
	}
	p, _ = sqliteProber(t, okReset+okWrite+okRead+"-- name: restart\nSELECT 1;\n", lab.Fenced)
	res, err = p.Sequential(t.Context(), scenario(t, "../../../scenarios/forgetful-receiver.json"))
	if err != nil || res.Verdict != probe.Agree {
		t.Errorf("forgetful-receiver against a durable table = %+v, %v; want agree", res, err)
	}
}

// TestGivesUp: without retries, serialization failures are counted as
// writes given up, apart from the fencing checks.
func TestGivesUp(t *testing.T) {
	f, err := sqlprobe.Parse("s.sql", strings.NewReader(strings.ReplaceAll(okReset, "INTEGER", "BIGINT")+
		"-- name: check\n-- isolation: serializable\nSELECT token FROM r WHERE name = :resource;\n"+
		"-- name: write\nINSERT INTO r (name, value, token) VALUES (:resource, :value, :token) ON CONFLICT (name) DO UPDATE SET value = excluded.value, token = excluded.token;\n"+okRead))
	if err != nil {
		t.Fatal(err)
	}
	noRetry, err := sqlprobe.Open(t.Context(), f, database(t, sqlprobe.Postgres), sqlprobe.Options{Policy: lab.Fenced, Conns: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer noRetry.Close()
	p := &probe.Prober{Client: noRetry, Policy: lab.Fenced}
	res, err := p.Concurrent(t.Context(), probe.ConcurrentOptions{Workers: 4, Duration: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Concurrent.GaveUp == 0 || res.Verdict != probe.Agree {
		t.Errorf("serializable without retries: %d gave up, verdict %s (%s); want some given up and agree", res.Concurrent.GaveUp, res.Verdict, res.Divergence)
	}
}

// TestMisconfigured: a database that answers but refuses the connection
// is unreachable, with the database's reason and without the password.
func TestMisconfigured(t *testing.T) {
	f, err := sqlprobe.Parse("r.sql", strings.NewReader(okReset+okWrite+okRead))
	if err != nil {
		t.Fatal(err)
	}
	pg, err := url.Parse(server(t, postgresEnv, postgresRequired))
	if err != nil {
		t.Fatal(err)
	}
	pg.Path = "/no_such_database"
	maria, err := url.Parse(server(t, mariaDBEnv, mariaDBRequired))
	if err != nil {
		t.Fatal(err)
	}
	maria.User = url.UserPassword(maria.User.Username(), "wrong-secret")
	for _, tt := range []struct{ db, words string }{
		{pg.String(), "no_such_database"},
		{maria.String(), "Access denied"},
	} {
		_, err := sqlprobe.Open(t.Context(), f, tt.db, sqlprobe.Options{Policy: lab.Fenced})
		var ue *probe.UnreachableError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.words) || strings.Contains(err.Error(), "wrong-secret") {
			t.Errorf("Open(%s) = %v, want an UnreachableError saying %q without the password", sqlprobe.Redact(tt.db), err, tt.words)
		}
	}
}
