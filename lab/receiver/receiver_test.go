package receiver_test

import (
	"database/sql"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fencelab/lab"
	"fencelab/lab/probe"
	"fencelab/lab/receiver"

	_ "github.com/go-sql-driver/mysql" // "mysql", for Database on MariaDB
	_ "github.com/jackc/pgx/v5/stdlib" // "pgx", for Database on PostgreSQL
	_ "github.com/mattn/go-sqlite3"    // the "sqlite3" driver the SQLite receiver opens
)

func tok(n int64) *int64 { return &n }

// TestSQLiteDurable: the remembered token survives closing the database
// and opening it again, as a process restart would.
func TestSQLiteDurable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.db")
	opt := receiver.Options{Policy: lab.Fenced}
	db, err := receiver.OpenSQLite(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if d, err := db.Write(ctx, receiver.Write{Resource: "result", Value: "new", Token: tok(42)}); err != nil || d.Outcome != receiver.Applied {
		t.Fatalf("Write(42) = %v, %v; want applied", d, err)
	}
	db.Close()
	if db, err = receiver.OpenSQLite(path, opt); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d, err := db.Write(ctx, receiver.Write{Resource: "result", Value: "old", Token: tok(41)})
	if err != nil || d.Outcome != receiver.Rejected || d.Reason != "41 < 42, already remembered" {
		t.Errorf("Write(41) after reopening = %+v, %v; want rejected: 41 < 42", d, err)
	}
}

// TestStores runs the same writes through every store and flaw that must
// agree on them when nothing runs concurrently.
func TestStores(t *testing.T) {
	type step struct {
		token   *int64
		expect  *int64 // the version condition (cas)
		op      string
		restart bool
		grant   int64
		want    receiver.Outcome
	}
	tests := []struct {
		policy lab.Policy
		flaw   receiver.Flaw
		steps  []step
	}{
		{lab.Fenced, receiver.Correct, []step{{token: tok(41), want: receiver.Applied}, {token: tok(41), want: receiver.Applied}, {token: tok(40), want: receiver.Rejected}, {token: nil, want: receiver.Rejected}}},
		{lab.FencedStrict, receiver.Correct, []step{{token: tok(41), want: receiver.Applied}, {token: tok(41), want: receiver.Rejected}, {token: tok(42), want: receiver.Applied}}},
		{lab.FencedIdempotent, receiver.Correct, []step{{token: tok(41), op: "k", want: receiver.Applied}, {token: tok(41), op: "k", want: receiver.Suppressed}, {token: tok(1), op: "k", want: receiver.Suppressed}, {token: tok(40), op: "j", want: receiver.Rejected}, {token: tok(41), op: "j", want: receiver.Applied}}},
		{lab.FencedRegister, receiver.Correct, []step{{grant: 42}, {token: tok(41), want: receiver.Rejected}, {token: tok(42), want: receiver.Applied}}},
		{lab.Fenced, receiver.Forgetful, []step{{token: tok(42), want: receiver.Applied}, {restart: true}, {token: tok(41), want: receiver.Applied}}},
		{lab.Fenced, receiver.Correct, []step{{token: tok(42), want: receiver.Applied}, {restart: true}, {token: tok(41), want: receiver.Rejected}}},
		{lab.Fenced, receiver.Racy, []step{{token: tok(42), want: receiver.Applied}, {token: tok(41), want: receiver.Rejected}}},
		{lab.CAS, receiver.Correct, []step{{token: nil, want: receiver.Applied}, {token: tok(1), expect: tok(1), want: receiver.Applied}, {token: tok(9), expect: tok(1), want: receiver.Rejected}, {expect: tok(2), want: receiver.Applied}, {expect: tok(5), want: receiver.Rejected}}},
		{lab.CAS, receiver.Correct, []step{{expect: tok(0), want: receiver.Applied}, {restart: true}, {expect: tok(1), want: receiver.Applied}}},
		{lab.CAS, receiver.Forgetful, []step{{expect: tok(0), want: receiver.Applied}, {restart: true}, {expect: tok(1), want: receiver.Rejected}, {expect: tok(0), want: receiver.Applied}}},
		{lab.CAS, receiver.Racy, []step{{expect: tok(0), want: receiver.Applied}, {expect: tok(0), want: receiver.Rejected}, {expect: nil, want: receiver.Applied}}},
	}
	for _, tt := range tests {
		for _, kind := range []string{"memory", "sqlite", "postgres", "mariadb"} {
			if tt.policy.ChecksVersion() && kind != "memory" && kind != "sqlite" {
				continue // the PostgreSQL and MySQL receiver implements the fenced family only
			}
			t.Run(kind+"/"+string(tt.policy)+"/"+string(tt.flaw), func(t *testing.T) {
				opt := receiver.Options{Policy: tt.policy, Flaw: tt.flaw}
				st := openKind(t, kind, opt)
				defer st.Close()
				ctx := t.Context()
				if err := st.Reset(ctx); err != nil {
					t.Fatal(err)
				}
				for i, s := range tt.steps {
					switch {
					case s.restart:
						if err := st.Restart(ctx, "result"); err != nil {
							t.Fatal(err)
						}
					case s.grant != 0:
						if err := st.Register(ctx, s.grant); err != nil {
							t.Fatal(err)
						}
					default:
						w := receiver.Write{Resource: "result", Value: "v", Token: s.token, ExpectVersion: s.expect}
						if s.op != "" {
							w.Op = &s.op
						}
						d, err := st.Write(ctx, w)
						if err != nil || d.Outcome != s.want {
							t.Errorf("step %d: Write(token %v, expect_version %v, op %q) = %+v, %v; want %s", i+1, deref(s.token), deref(s.expect), s.op, d, err, s.want)
						}
					}
				}
			})
		}
	}
}

// TestRacyWindow shows the race of the racy flaw step by step: a write
// with token 9 passes its check and waits in the window; a write with 5
// passes its check too (nothing remembered yet); 9 lands and is
// acknowledged, then 5 lands over it and the remembered token drops to 5,
// so 6 passes after 9 was acknowledged. The correct store, given the same
// writes in the same order, rejects 5 and 6 and ends with 9.
func TestRacyWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out race windows of up to a second; runs without -short")
	}
	for _, tt := range []struct {
		flaw      receiver.Flaw
		wantToken int64
		want6     receiver.Outcome
	}{{receiver.Racy, 6, receiver.Applied}, {receiver.Correct, 9, receiver.Rejected}} {
		t.Run(string(cmpOr(tt.flaw, "correct")), func(t *testing.T) {
			opt := receiver.Options{Policy: lab.Fenced, Flaw: tt.flaw}
			if tt.flaw == receiver.Racy {
				opt.Window = 300 * time.Millisecond
			}
			db, err := receiver.OpenSQLite(filepath.Join(t.TempDir(), "r.db"), opt)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ctx := t.Context()
			write := func(token int64, value string) chan receiver.Decision {
				done := make(chan receiver.Decision, 1)
				go func() {
					d, _ := db.Write(ctx, receiver.Write{Resource: "result", Value: value, Token: tok(token)})
					done <- d
				}()
				return done
			}
			nine := write(9, "nine")
			time.Sleep(100 * time.Millisecond) // 9 has passed its check
			five := write(5, "five")
			if d := <-nine; d.Outcome != receiver.Applied {
				t.Fatalf("Write(9) = %+v; want applied", d)
			}
			<-five
			d, err := db.Write(ctx, receiver.Write{Resource: "result", Value: "six", Token: tok(6)})
			if err != nil || d.Outcome != tt.want6 {
				t.Errorf("Write(6) after 9 was acknowledged = %+v, %v; want %s", d, err, tt.want6)
			}
			h, _ := db.Resource(ctx, "result")
			if h.Token == nil || *h.Token != tt.wantToken {
				t.Errorf("result holds token %v, want %d", deref(h.Token), tt.wantToken)
			}
		})
	}
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func cmpOr(f, fallback receiver.Flaw) receiver.Flaw {
	if f == "" {
		return fallback
	}
	return f
}

// TestEveryFencedPolicyValid walks every policy of the model: each that a
// real receiver could claim and that checks tokens or versions is one the
// reference receiver implements; every other is refused.
func TestEveryFencedPolicyValid(t *testing.T) {
	for _, p := range lab.Policies() {
		err := receiver.Options{Policy: p}.Validate()
		if want := p.ClaimableByReceiver() && (p.ChecksToken() || p.ChecksVersion()); (err == nil) != want {
			t.Errorf("Options{Policy: %s}.Validate() = %v, want accepted %t", p, err, want)
		}
	}
}

// openKind opens a store of the kind; PostgreSQL and MariaDB only when
// FENCELAB_TEST_POSTGRES or FENCELAB_TEST_MARIADB names one (required
// in CI), never under -short.
func openKind(t *testing.T, kind string, opt receiver.Options) receiver.Store {
	t.Helper()
	switch kind {
	case "memory":
		return receiver.NewMemory(opt)
	case "sqlite":
		db, err := receiver.OpenSQLite(filepath.Join(t.TempDir(), "r.db"), opt)
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	env, required := "FENCELAB_TEST_POSTGRES", "FENCELAB_POSTGRES_TESTS"
	if kind == "mariadb" {
		env, required = "FENCELAB_TEST_MARIADB", "FENCELAB_MARIADB_TESTS"
	}
	url := os.Getenv(env)
	switch {
	case testing.Short():
		t.Skip("a real database: not under -short")
	case url == "" && os.Getenv(required) == "required":
		t.Fatalf("%s=required but %s names no server", required, env)
	case url == "":
		t.Skipf("a real database: set %s to run", env)
	}
	db, err := receiver.OpenDatabase(t.Context(), url, opt)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// TestDatabaseConcurrent probes the receiver on PostgreSQL and MariaDB
// with concurrent writers over HTTP: the correct one agrees, the racy one
// (no FOR UPDATE) is caught.
func TestDatabaseConcurrent(t *testing.T) {
	for _, kind := range []string{"postgres", "mariadb"} {
		for _, flaw := range []receiver.Flaw{receiver.Correct, receiver.Racy} {
			t.Run(kind+"/"+string(cmpOr(flaw, "correct")), func(t *testing.T) {
				opt := receiver.Options{Policy: lab.Fenced, Flaw: flaw}
				st := openKind(t, kind, opt)
				defer st.Close()
				srv := httptest.NewServer(receiver.Handler(st, opt, slog.New(slog.NewTextHandler(io.Discard, nil))))
				defer srv.Close()
				c, err := probe.NewClient(srv.URL, 5*time.Second, 4)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				p := &probe.Prober{Client: c, Policy: lab.Fenced, Remember: lab.Durable}
				res, err := p.Concurrent(t.Context(), probe.ConcurrentOptions{Workers: 4, Duration: 5 * time.Second})
				want := probe.Agree
				if flaw == receiver.Racy {
					want = probe.Disagree
				}
				if err != nil || res.Verdict != want {
					t.Errorf("concurrent probe of the %s receiver on %s = %+v, %v; want %s", cmpOr(flaw, "correct"), kind, res, err, want)
				}
			})
		}
	}
}

// TestVersions: GET /resources says the version, the count of writes
// applied, under every policy; a reset starts it again at 0, a restart
// keeps it.
func TestVersions(t *testing.T) {
	for _, policy := range []lab.Policy{lab.Fenced, lab.CAS} {
		for _, kind := range []string{"memory", "sqlite"} {
			t.Run(kind+"/"+string(policy), func(t *testing.T) {
				st := openKind(t, kind, receiver.Options{Policy: policy})
				defer st.Close()
				ctx := t.Context()
				version := func(when string, want int64) {
					t.Helper()
					h, err := st.Resource(ctx, "result")
					if err != nil || h.Version == nil || *h.Version != want {
						t.Errorf("Resource(result) %s = version %v, %v; want %d", when, deref(h.Version), err, want)
					}
				}
				version("before any write", 0)
				for range 3 {
					st.Write(ctx, receiver.Write{Resource: "result", Value: "v", Token: tok(41)})
				}
				st.Write(ctx, receiver.Write{Resource: "result", Value: "v", Token: tok(40), ExpectVersion: tok(0)}) // rejected either way
				version("after 3 writes applied", 3)
				st.Restart(ctx, "result")
				version("after a restart", 3)
				st.Reset(ctx)
				version("after a reset", 0)
			})
		}
	}
}

// TestSQLiteAddsVersion: a receiver file made before versions were
// counted gets the column when opened, its rows at version 0.
func TestSQLiteAddsVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = old.Exec(`CREATE TABLE resources (name TEXT PRIMARY KEY, value TEXT, token INTEGER, remembered INTEGER) STRICT;
		INSERT INTO resources VALUES ('result', 'kept', 42, 42)`)
	old.Close()
	if err != nil {
		t.Fatal(err)
	}
	db, err := receiver.OpenSQLite(path, receiver.Options{Policy: lab.CAS})
	if err != nil {
		t.Fatalf("OpenSQLite(a file without versions) = %v", err)
	}
	defer db.Close()
	d, err := db.Write(t.Context(), receiver.Write{Resource: "result", Value: "new", ExpectVersion: tok(0)})
	h, _ := db.Resource(t.Context(), "result")
	if err != nil || d.Outcome != receiver.Applied || h.Version == nil || *h.Version != 1 {
		t.Errorf("Write(expect_version 0) on the old row = %+v, %v, then version %v; want applied, then 1", d, err, deref(h.Version))
	}
}
