package sqlprobe_test

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fencelab/lab"
	"fencelab/lab/probe"
	"fencelab/lab/probe/sqlprobe"
)

// openV2 binds file for engine and policy and opens it on db.
func openV2(t *testing.T, file string, engine sqlprobe.Engine, db string, policy lab.Policy) *sqlprobe.Receiver {
	t.Helper()
	f, err := sqlprobe.ParseWith("r.sql", strings.NewReader(file), sqlprobe.Config{Engine: engine, Policy: policy})
	if err != nil {
		t.Fatalf("ParseWith: %v", err)
	}
	r, err := sqlprobe.Open(t.Context(), f, db, sqlprobe.Options{Policy: policy, Retries: sqlprobe.DefaultRetries})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestV2Words: an answer that claims a write the row does not show is
// said so, and a refusal through an outcome row gives its reason.
func TestV2Words(t *testing.T) {
	t.Parallel()
	claims := okReset + "-- name: write\nINSERT INTO r (name, value, token) VALUES (:resource, :value, :token)\n ON CONFLICT (name) DO UPDATE SET value = excluded.value, token = excluded.token WHERE r.token <= excluded.token;\nSELECT 'applied' AS outcome;\n" + okRead
	refuses := okReset + "-- name: write\nSELECT 'rejected' AS outcome, 'job is not running' AS reason;\n" + okRead
	for _, tt := range []struct{ name, file, scenario, words string }{
		{"applied without a change", claims, "paused-worker", `but the row still holds "new-result" with token 42: its answer claims a write that did not happen`},
		{"a reason", refuses, "paused-worker", "(its reason: job is not running)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := openV2(t, tt.file, sqlprobe.SQLite, filepath.Join(t.TempDir(), "r.db"), lab.Fenced)
			res, err := (&probe.Prober{Client: r, Policy: lab.Fenced}).Sequential(t.Context(), scenario(t, "../../../scenarios/"+tt.scenario+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != probe.Disagree || !strings.Contains(res.Divergence, tt.words) {
				t.Errorf("verdict %s (%s), want disagree saying %q", res.Verdict, res.Divergence, tt.words)
			}
		})
	}
}

// TestV2RefusedOn: without refused-on kine's unique index stops the probe
// as v1 did; with it the error is a refusal with its code.
func TestV2RefusedOn(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../../docs/sql/sqlite-kine-refused-on.sql")
	if err != nil {
		t.Fatal(err)
	}
	s := scenario(t, "../../../scenarios/stale-read-fresh-token.json")
	without := strings.Replace(string(b), " refused-on=SQLITE_CONSTRAINT_UNIQUE", "", 1)
	r := openV2(t, without, sqlprobe.SQLite, filepath.Join(t.TempDir(), "r.db"), lab.CAS)
	_, err = (&probe.Prober{Client: r, Policy: lab.CAS}).Sequential(t.Context(), s)
	var be *probe.BrokenError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "UNIQUE constraint failed") || !strings.Contains(err.Error(), "query InsertSQL") {
		t.Errorf("without refused-on: %v, want the probe stopped by the unique index, naming the query", err)
	}
	r = openV2(t, string(b), sqlprobe.SQLite, filepath.Join(t.TempDir(), "r.db"), lab.CAS)
	res, err := (&probe.Prober{Client: r, Policy: lab.CAS}).Sequential(t.Context(), s)
	if err != nil || res.Verdict != probe.Agree {
		t.Fatalf("with refused-on: %v, %v; want agree", res, err)
	}
	i := slices.IndexFunc(res.Steps, func(st probe.Step) bool { return st.Observed != nil && st.Observed.Outcome == "rejected" })
	if i < 0 || !strings.Contains(res.Steps[i].Observed.Reason, "2067") {
		t.Errorf("with refused-on: no rejected step giving the code 2067 (%+v)", res.Steps)
	}
}

const equalFile = `-- fencelab: check=GetShard grant=GetShard,SetShard decide=equal range_id=token
-- name: reset
CREATE TABLE IF NOT EXISTS shards (id INTEGER PRIMARY KEY, range_id INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS r (name TEXT PRIMARY KEY, value TEXT, token INTEGER);
DELETE FROM shards; DELETE FROM r;
INSERT INTO shards VALUES (1, 0);
-- name: GetShard
SELECT range_id FROM shards WHERE id = 1;
-- name: SetShard
UPDATE shards SET range_id = :token WHERE id = 1;
-- name: write
INSERT INTO r (name, value, token) VALUES (:resource, :value, :token)
 ON CONFLICT (name) DO UPDATE SET value = excluded.value, token = excluded.token;
` + okRead

// TestV2Equal: equality agrees where each holder registers at its grant,
// and the probe reports where it differs from fenced-register: a write
// whose token no grant registered.
func TestV2Equal(t *testing.T) {
	t.Parallel()
	unregistered, err := lab.Parse(strings.NewReader(`{"version": 1, "title": "a token nobody was granted",
		"scopes": {"job": {"first_token": 41}}, "events": [
		{"actor": "A", "kind": "acquire"},
		{"actor": "A", "kind": "write", "value": "x", "token": 50}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		s    *lab.Scenario
		want string
	}{{scenario(t, "../../../scenarios/register-on-acquire.json"), probe.Agree}, {scenario(t, "../../../scenarios/paused-worker.json"), probe.Agree}, {unregistered, probe.Disagree}} {
		r := openV2(t, equalFile, sqlprobe.SQLite, filepath.Join(t.TempDir(), "r.db"), lab.FencedRegister)
		res, err := (&probe.Prober{Client: r, Policy: lab.FencedRegister}).Sequential(t.Context(), tt.s)
		if err != nil || res.Verdict != tt.want {
			t.Errorf("%s: %v (%s), %v; want %s", tt.s.Title, res.Verdict, res.Divergence, err, tt.want)
		}
	}
}

// TestV2GrantAndReset: a grant whose first query returns token never
// lowers the register; reset runs per declared resource.
func TestV2GrantAndReset(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.db")
	file := strings.Replace(equalFile, "INSERT INTO shards VALUES (1, 0);", "INSERT INTO shards VALUES (1, 0);\nINSERT INTO r (name) VALUES (:resource);", 1)
	r := openV2(t, file, sqlprobe.SQLite, path, lab.FencedRegister)
	r.Declare(probe.Declaration{Resources: []string{"a", "b"}, Scopes: []string{"job"}})
	ctx := t.Context()
	if err := r.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tok := range []int64{42, 41} {
		if err := r.Grant(ctx, "job", tok); err != nil {
			t.Fatal(err)
		}
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var held, rows int64
	if err := db.QueryRow("SELECT range_id FROM shards").Scan(&held); err != nil || held != 42 {
		t.Errorf("after grants 42 then 41 the register holds %d (%v), want 42", held, err)
	}
	if err := db.QueryRow("SELECT count(*) FROM r WHERE name IN ('a', 'b')").Scan(&rows); err != nil || rows != 2 {
		t.Errorf("reset made %d rows (%v), want one per declared resource", rows, err)
	}
}

// TestV2PostgresNames: a PostgreSQL error names the file's placeholder,
// never the probe's $k.
func TestV2PostgresNames(t *testing.T) {
	db := database(t, sqlprobe.Postgres)
	for _, tt := range []struct{ write, words string }{
		{"SELECT 'applied' AS outcome WHERE @value IS NOT NULL", "parameter @value"},
		{"SELECT 'applied' AS outcome WHERE :resource = 'result' AND :token::text = :token::bigint::text", "encode :token"},
	} {
		file := strings.ReplaceAll(okReset, "INTEGER", "BIGINT") + "-- name: write\n" + tt.write + ";\n" + okRead
		r := openV2(t, file, sqlprobe.Postgres, db, lab.Fenced)
		_, err := (&probe.Prober{Client: r, Policy: lab.Fenced}).Sequential(t.Context(), scenario(t, "../../../scenarios/paused-worker.json"))
		if err == nil || !strings.Contains(err.Error(), tt.words) || strings.Contains(err.Error(), "$1") || strings.Contains(err.Error(), "args[") {
			t.Errorf("%s: Sequential = %v, want an error saying %q", tt.write, err, tt.words)
		}
	}
}

// TestV2VersionSteps: under cas a version that rises by any step agrees
// in every mode; one that stays after an applied write is caught.
func TestV2VersionSteps(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../../docs/sql/sqlite-cas.sql")
	if err != nil {
		t.Fatal(err)
	}
	s := scenario(t, "../../../scenarios/stale-read-fresh-token.json")
	for _, tt := range []struct{ name, step, want, words string }{
		{"by seven", "version = version + 7", probe.Agree, ""},
		{"by random steps", "version = version + 1000 + abs(random() % 1000)", probe.Agree, ""},
		{"not at all", "version = version", probe.Disagree, "step 6: the receiver answered applied, but the version stayed at 0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := strings.Replace(string(b), "version = version + 1", tt.step, 1)
			r := openV2(t, file, sqlprobe.SQLite, filepath.Join(t.TempDir(), "r.db"), lab.CAS)
			p := &probe.Prober{Client: r, Policy: lab.CAS}
			res, err := p.Sequential(t.Context(), s)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.VersionName("balance", 1); tt.name == "by seven" && got != "7" {
				t.Errorf("VersionName(balance, 1) = %q, want 7, the version the receiver gave", got)
			}
			r.Annotate(res)
			if res.Verdict != tt.want || !strings.Contains(res.Divergence, tt.words) {
				t.Errorf("in order: %s (%s), want %s saying %q", res.Verdict, res.Divergence, tt.want, tt.words)
			}
			if tt.want == probe.Agree {
				res, err = p.Orderings(t.Context(), s, probe.OrderingsOptions{N: orderings(), Seed: 1})
				if err != nil || res.Verdict != probe.Agree {
					t.Errorf("every ordering: %v, %v; want agree", res, err)
				}
				res, err = p.Concurrent(t.Context(), probe.ConcurrentOptions{Workers: 3, Duration: 100 * time.Millisecond})
				if err != nil || res.Verdict != probe.Agree || res.Concurrent.Applied == 0 {
					t.Errorf("concurrent: %+v, %v; want agree with writes applied", res, err)
				}
			}
		})
	}
}

// TestV2DateTimeVersion: a version may be a date-time, compared in time
// order and sent back as the database gave it.
func TestV2DateTimeVersion(t *testing.T) {
	t.Parallel()
	file := `-- name: reset
CREATE TABLE IF NOT EXISTS r (name TEXT PRIMARY KEY, value TEXT, token INTEGER, updated_at TEXT NOT NULL);
DELETE FROM r;
INSERT INTO r (name, updated_at) VALUES (:resource, '2026-01-01 00:00:00.000');
-- name: write
UPDATE r SET value = :value, token = :token, updated_at = strftime('%Y-%m-%d %H:%M:%f', updated_at, '+1.5 seconds')
 WHERE name = :resource AND (:expect_version IS NULL OR updated_at = :expect_version);
-- name: read
SELECT value, token, updated_at AS version FROM r WHERE name = :resource;
`
	r := openV2(t, file, sqlprobe.SQLite, filepath.Join(t.TempDir(), "r.db"), lab.CAS)
	p := &probe.Prober{Client: r, Policy: lab.CAS}
	s := scenario(t, "../../../scenarios/stale-read-fresh-token.json")
	res, err := p.Sequential(t.Context(), s)
	if err != nil || res.Verdict != probe.Agree {
		t.Fatalf("in order: %+v, %v; want agree", res, err)
	}
	res, err = p.Concurrent(t.Context(), probe.ConcurrentOptions{Workers: 3, Duration: 100 * time.Millisecond})
	if err != nil || res.Verdict != probe.Agree || res.Concurrent.Applied == 0 {
		t.Errorf("concurrent: %+v, %v; want agree with writes applied", res, err)
	}
}
