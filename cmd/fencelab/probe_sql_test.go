package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProbeSQLCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.sql")
	os.WriteFile(bad, []byte("-- name: reset\nDELETE FROM r;\n-- name: write\nUPDATE r SET v = :vaule;\n-- name: read\nSELECT value, token FROM r;\n"), 0o600)
	good := "../../docs/sql/sqlite-conditional-update.sql"
	refused := filepath.Join(dir, "refused.sql")
	os.WriteFile(refused, []byte("-- name: reset\nCREATE TABLE IF NOT EXISTS r (name TEXT PRIMARY KEY);\n-- name: write\nUPDATE nosuch SET v = :value;\n-- name: read\nSELECT value, token FROM r;\n"), 0o600)
	own := filepath.Join(dir, "own.sql")
	os.WriteFile(own, []byte("-- name: Wipe :exec\nCREATE TABLE IF NOT EXISTS r (name TEXT PRIMARY KEY, v TEXT, t INTEGER);\nDELETE FROM r;\n"+
		"-- name: Save :execrows\nINSERT INTO r VALUES (?, ?, :token) ON CONFLICT (name) DO UPDATE SET v = excluded.v, t = excluded.t WHERE r.t <= excluded.t;\n"+
		"-- name: Load :one\nSELECT v, t FROM r WHERE name = ?;\n"), 0o600)
	db := filepath.Join(dir, "r.db")
	// Under -short every ordering of delayed-request (105 plays) stands
	// for old-token-first's 420, and the concurrent run is shorter.
	orderings, duration := "old-token-first", "300ms"
	if testing.Short() {
		orderings, duration = "delayed-request", "30ms"
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		out    []string
		stderr string
	}{
		{"agree", []string{"--sql", good, "--db", db, "--scenario", "paused-worker"}, 0,
			[]string{"sqlite-conditional-update.sql on " + db, `rejected; holds new-result @42`, "AGREE"}, ""},
		{"every ordering", []string{"--sql", good, "--db", db, "--scenario", orderings, "--orderings", "all"}, 0,
			[]string{"disagree", "AGREE"}, ""},
		{"concurrent", []string{"--sql", good, "--db", db, "--concurrent", "2", "--duration", duration}, 0,
			[]string{"requests/s", "AGREE"}, ""},
		{"markdown", []string{"--sql", good, "--db", db, "--scenario", "paused-worker", "--policy", "fenced-strict", "--format", "markdown"}, 0,
			[]string{"## Probe: "}, ""},
		{"a mistake in the file", []string{"--sql", bad, "--db", db, "--scenario", "paused-worker"}, 2, nil, "bad.sql:4: block write: unknown parameter :vaule"},
		{"a role map and a parameter map by flag", []string{"--sql", own, "--db", db, "--scenario", "paused-worker",
			"--role", "reset=Wipe write=Save read=Load", "--role", "Load: v=value t=token", "--param", "Save: ?1=resource ?2=value", "--param", "Load: ?1=resource"}, 0,
			[]string{"AGREE"}, "note: query Save binds :token as the probe's token; map it if it means something else"},
		{"a flag naming a missing query", []string{"--sql", own, "--db", db, "--scenario", "paused-worker", "--role", "reset=Wipe write=Store read=Load"}, 2, nil,
			"own.sql: --role write=Store: role write names Store: no query of that name; the file's queries: Wipe (line 1)"},
		{"no such file", []string{"--sql", filepath.Join(dir, "none.sql"), "--db", db, "--scenario", "paused-worker"}, 2, nil, "none.sql"},
		{"a statement the database refuses", []string{"--sql", refused, "--db", db, "--scenario", "paused-worker"}, 2, nil,
			"step 6: block write, statement 1 (line 4: UPDATE nosuch SET v = :value): no such table: nosuch"},
		{"sql without db", []string{"--sql", good, "--scenario", "paused-worker"}, 2, nil, "--sql needs --db"},
		{"db without sql", []string{"--db", db, "--scenario", "paused-worker"}, 2, nil, "--db needs --sql"},
		{"both", []string{"--target", "http://x", "--sql", good, "--db", db, "--scenario", "paused-worker"}, 2, nil, "not both"},
		{"unknown database", []string{"--sql", good, "--db", "mongodb://h/d", "--scenario", "paused-worker"}, 2, nil, "use postgres://"},
		{"unreachable", []string{"--sql", good, "--db", "postgres://u@127.0.0.1:1/d?connect_timeout=2", "--scenario", "paused-worker"}, 2, nil, "connect to"},
		{"bad isolation", []string{"--sql", good, "--db", db, "--isolation", "snapshot", "--scenario", "paused-worker"}, 2, nil, "--isolation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(append([]string{"probe"}, tt.args...), nil, &out, &errOut)
			if code := exitCode(err, &errOut); code != tt.code {
				t.Fatalf("probe %q exit %d, want %d; stdout:\n%s\nstderr:\n%s", tt.args, code, tt.code, out.String(), errOut.String())
			}
			for _, want := range tt.out {
				if !strings.Contains(out.String(), want) {
					t.Errorf("probe %q printed:\n%s\nwant it to contain %q", tt.args, out.String(), want)
				}
			}
			if !strings.Contains(errOut.String(), tt.stderr) {
				t.Errorf("probe %q said on stderr:\n%s\nwant it to contain %q", tt.args, errOut.String(), tt.stderr)
			}
		})
	}
}

func TestProbeSQLJSON(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	db := filepath.Join(t.TempDir(), "r.db")
	err := run([]string{"probe", "--sql", "../../docs/sql/sqlite-conditional-update.sql", "--db", db, "--scenario", "paused-worker", "--json"}, nil, &out, &bytes.Buffer{})
	if err != nil {
		t.Fatalf("probe --sql --json: %v", err)
	}
	var res struct {
		Verdict string `json:"verdict"`
		SQL     struct {
			Engine string `json:"engine"`
			Text   string `json:"text"`
		} `json:"sql"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("probe --sql --json printed %s: %v", out.String(), err)
	}
	if res.Verdict != "agree" || res.SQL.Engine != "sqlite" || !strings.Contains(res.SQL.Text, "-- name: write") {
		t.Errorf("probe --sql --json = %s, want agree with the sqlite statement file", out.String())
	}
}

// TestProbeSQLNamesItsRequests: a SQL receiver's steps are named by the
// queries that ran them, in the text and the Markdown, never by the HTTP
// contract's POST /writes, which a statement file never receives.
func TestProbeSQLNamesItsRequests(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	own := filepath.Join(dir, "own.sql")
	os.WriteFile(own, []byte("-- name: Wipe :exec\nCREATE TABLE IF NOT EXISTS r (name TEXT PRIMARY KEY, v TEXT, t INTEGER);\nDELETE FROM r;\n"+
		"-- name: CompleteJob :execrows\nINSERT INTO r VALUES (?, ?, :token) ON CONFLICT (name) DO UPDATE SET v = excluded.v, t = excluded.t WHERE r.t <= excluded.t;\n"+
		"-- name: Load :one\nSELECT v, t FROM r WHERE name = ?;\n"), 0o600)
	roles := []string{"--role", "reset=Wipe write=CompleteJob read=Load", "--role", "Load: v=value t=token",
		"--param", "CompleteJob: ?1=resource ?2=value", "--param", "Load: ?1=resource"}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"text, a query of its own", append([]string{"--sql", own, "--db", filepath.Join(dir, "a.db"), "--scenario", "paused-worker"}, roles...), "SQL write CompleteJob"},
		{"markdown, a query of its own", append([]string{"--sql", own, "--db", filepath.Join(dir, "b.db"), "--scenario", "paused-worker", "--format", "markdown"}, roles...), "| SQL write CompleteJob |"},
		{"text, a query named write", []string{"--sql", "../../docs/sql/sqlite-conditional-update.sql", "--db", filepath.Join(dir, "c.db"), "--scenario", "paused-worker"}, "SQL write "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if err := run(append([]string{"probe"}, tt.args...), nil, &out, &errOut); err != nil {
				t.Fatalf("probe %q: %v\n%s", tt.args, err, errOut.String())
			}
			if strings.Contains(out.String(), "POST /") {
				t.Errorf("probe %q printed:\n%s\nwant no HTTP request: a SQL receiver runs queries", tt.args, out.String())
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("probe %q printed:\n%s\nwant it to name the write %q", tt.args, out.String(), tt.want)
			}
		})
	}
	// A grant the file has no block for is not an HTTP 404.
	var out bytes.Buffer
	args := []string{"probe", "--sql", "../../docs/sql/sqlite-conditional-update.sql", "--db", filepath.Join(dir, "d.db"), "--scenario", "paused-worker", "--policy", "fenced-register"}
	run(args, nil, &out, &bytes.Buffer{})
	if !strings.Contains(out.String(), "NOT TESTABLE: step 1 needs a grant block, which the statement file does not have") || strings.Contains(out.String(), "404") {
		t.Errorf("probe %q printed:\n%s\nwant it not testable for want of a grant block", args, out.String())
	}
}

func TestReceiverStoreURL(t *testing.T) {
	for _, store := range []string{"postgres://u@h/d", "mysql://u:p@h:3306/d"} {
		if _, err := parseReceiverFlags([]string{"--store", store}); err != nil {
			t.Errorf("parseReceiverFlags(--store %s) = %v, want accepted", store, err)
		}
	}
	for _, store := range []string{"mongodb://h/d", "postgres", "mysql://h"} {
		if _, err := parseReceiverFlags([]string{"--store", store}); err == nil {
			t.Errorf("parseReceiverFlags(--store %s) = nil error, want a usage error", store)
		}
	}
	if got := storeName("mysql://u:secret@h:3306/d"); strings.Contains(got, "secret") || !strings.HasPrefix(got, "mysql (") {
		t.Errorf("storeName(mysql://u:secret@…) = %q, want the engine without the password", got)
	}
}
