package receiver

import (
	"path/filepath"
	"testing"
)

func tok(n int64) *int64 { return &n }

// TestSQLiteDurable: the remembered token survives closing the database
// and opening it again, as a process restart would.
func TestSQLiteDurable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.db")
	opt := Options{Policy: Fenced}
	db, err := OpenSQLite(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if d, err := db.Write(ctx, Write{Resource: "result", Value: "new", Token: tok(42)}); err != nil || d.Outcome != Applied {
		t.Fatalf("Write(42) = %v, %v; want applied", d, err)
	}
	db.Close()
	if db, err = OpenSQLite(path, opt); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d, err := db.Write(ctx, Write{Resource: "result", Value: "old", Token: tok(41)})
	if err != nil || d.Outcome != Rejected || d.Reason != "41 < 42, already remembered" {
		t.Errorf("Write(41) after reopening = %+v, %v; want rejected: 41 < 42", d, err)
	}
}

// TestStores runs the same writes through every store and flaw that must
// agree on them when nothing runs concurrently.
func TestStores(t *testing.T) {
	type step struct {
		token   *int64
		op      string
		restart bool
		grant   int64
		want    Outcome
	}
	tests := []struct {
		policy Policy
		flaw   Flaw
		steps  []step
	}{
		{Fenced, Correct, []step{{token: tok(41), want: Applied}, {token: tok(41), want: Applied}, {token: tok(40), want: Rejected}, {token: nil, want: Rejected}}},
		{FencedStrict, Correct, []step{{token: tok(41), want: Applied}, {token: tok(41), want: Rejected}, {token: tok(42), want: Applied}}},
		{FencedIdempotent, Correct, []step{{token: tok(41), op: "k", want: Applied}, {token: tok(41), op: "k", want: Suppressed}, {token: tok(1), op: "k", want: Suppressed}, {token: tok(40), op: "j", want: Rejected}, {token: tok(41), op: "j", want: Applied}}},
		{FencedRegister, Correct, []step{{grant: 42}, {token: tok(41), want: Rejected}, {token: tok(42), want: Applied}}},
		{Fenced, Forgetful, []step{{token: tok(42), want: Applied}, {restart: true}, {token: tok(41), want: Applied}}},
		{Fenced, Correct, []step{{token: tok(42), want: Applied}, {restart: true}, {token: tok(41), want: Rejected}}},
		{Fenced, Racy, []step{{token: tok(42), want: Applied}, {token: tok(41), want: Rejected}}},
	}
	for _, tt := range tests {
		for _, kind := range []string{"memory", "sqlite"} {
			t.Run(kind+"/"+string(tt.policy)+"/"+string(tt.flaw), func(t *testing.T) {
				opt := Options{Policy: tt.policy, Flaw: tt.flaw}
				var st Store = NewMemory(opt)
				if kind == "sqlite" {
					db, err := OpenSQLite(filepath.Join(t.TempDir(), "r.db"), opt)
					if err != nil {
						t.Fatal(err)
					}
					st = db
				}
				defer st.Close()
				ctx := t.Context()
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
						w := Write{Resource: "result", Value: "v", Token: s.token}
						if s.op != "" {
							w.Op = &s.op
						}
						d, err := st.Write(ctx, w)
						if err != nil || d.Outcome != s.want {
							t.Errorf("step %d: Write(token %v, op %q) = %+v, %v; want %s", i+1, s.token, s.op, d, err, s.want)
						}
					}
				}
			})
		}
	}
}
