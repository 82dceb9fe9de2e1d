package sqlprobe_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"fencelab/lab"
	"fencelab/lab/probe"
	"fencelab/lab/probe/sqlprobe"
)

// example is a docs/sql file with what its comment says the probe finds.
type example struct {
	path, name string
	engine     sqlprobe.Engine
	expect     string // right, racy or wrong
	policy     lab.Policy
	scenario   string // the scenario that shows a wrong file in order
}

var expectLine = regexp.MustCompile(`(?m)^-- expect: (right|racy|wrong) \(([a-z-]+)\)(?: (\S+))?$`)

func examples(t *testing.T) []example {
	paths, err := filepath.Glob("../../../docs/sql/*.sql")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no docs/sql/*.sql (%v)", err)
	}
	var out []example
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m := expectLine.FindStringSubmatch(string(b))
		if m == nil {
			t.Fatalf("%s has no -- expect: right|racy|wrong (policy) line", p)
		}
		name := filepath.Base(p)
		out = append(out, example{path: p, name: name, engine: engineOf(name), expect: m[1], policy: lab.Policy(m[2]), scenario: m[3]})
	}
	return out
}

func scenario(t testing.TB, path string) *lab.Scenario {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := lab.Parse(f)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return s
}

// open parses an example and connects to a fresh database of its engine;
// the deferred SQLite example runs as its comment says, _txlock=deferred.
func open(t testing.TB, path string, engine sqlprobe.Engine, policy lab.Policy, conns int) (*sqlprobe.Receiver, string) {
	t.Helper()
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	f, err := sqlprobe.ParseWith(filepath.Base(path), in, sqlprobe.Config{Engine: engine, Policy: policy})
	if err != nil {
		t.Fatalf("Parse(%s): %v", path, err)
	}
	db := database(t, engine)
	if engine == sqlprobe.SQLite && strings.Contains(path, "deferred") {
		db = "file:" + db + "?_txlock=deferred"
	}
	r, err := sqlprobe.Open(context.Background(), f, db, sqlprobe.Options{Policy: policy, Retries: sqlprobe.DefaultRetries, Conns: conns})
	if err != nil {
		t.Fatalf("Open(%s, %s): %v", path, sqlprobe.Redact(db), err)
	}
	t.Cleanup(func() { r.Close() })
	return r, db
}

// TestExamples plays every docs/sql file and checks the probe judges it
// as its comment says: right agrees in every mode, racy agrees in order
// and in every ordering but the concurrent mode catches it, wrong
// disagrees in order on the scenario it names. A cas file plays
// stale-read-fresh-token, where a write's version condition decides; a
// right file that names a scenario plays that one.
func TestExamples(t *testing.T) {
	t.Parallel()
	for _, ex := range examples(t) {
		t.Run(ex.name, func(t *testing.T) {
			r, _ := open(t, ex.path, ex.engine, ex.policy, 4)
			p := &probe.Prober{Client: r, Policy: ex.policy, Remember: lab.Durable}
			ctx := t.Context()
			if ex.expect == "wrong" {
				path := "../../../docs/sql/" + ex.scenario
				if _, err := os.Stat(path); err != nil {
					path = "../../../scenarios/" + ex.scenario + ".json"
				}
				res, err := p.Sequential(ctx, scenario(t, path))
				verdict(t, ex, "in order on "+ex.scenario, res, err, probe.Disagree)
				return
			}
			// A conditional write (cas) is seen at work on an rmw write; a
			// right file may name the scenario that shows it at work.
			name := "paused-worker"
			if ex.policy.ChecksVersion() {
				name = "stale-read-fresh-token"
			}
			if ex.scenario != "" {
				name = ex.scenario
			}
			played := scenario(t, "../../../scenarios/"+name+".json")
			res, err := p.Sequential(ctx, played)
			verdict(t, ex, "in order", res, err, probe.Agree)
			res, err = p.Orderings(ctx, played, probe.OrderingsOptions{N: orderings(), Seed: 1})
			verdict(t, ex, "in every ordering", res, err, probe.Agree)
			concurrent(t, ex, r, p)
		})
	}
}

func orderings() int {
	if testing.Short() {
		return 8
	}
	return 120 // of 720: every ordering of every file would take minutes
}

func concurrent(t *testing.T, ex example, r *sqlprobe.Receiver, p *probe.Prober) {
	d, want := 2*time.Second, probe.Agree
	if ex.expect == "racy" {
		if testing.Short() {
			return // up to 10 s: not under -short
		}
		d, want = 10*time.Second, probe.Disagree
	} else if testing.Short() {
		d = 30 * time.Millisecond
	}
	res, err := p.Concurrent(t.Context(), probe.ConcurrentOptions{Workers: 4, Duration: d})
	verdict(t, ex, "concurrent", res, err, want)
	if res.Concurrent == nil || res.Concurrent.Applied == 0 {
		t.Errorf("%s concurrent for %s: no write applied, want a run that wrote", ex.name, d)
	}
	r.Annotate(res)
	if want == probe.Disagree && res != nil && (res.Concurrent.Violation == nil || !strings.Contains(res.Divergence, "block write")) {
		t.Errorf("%s concurrent: divergence %q, want a violating pair and the statement named", ex.name, res.Divergence)
	}
}

func verdict(t *testing.T, ex example, mode string, res *probe.Result, err error, want string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s %s: %v", ex.name, mode, err)
	}
	if res.Verdict != want {
		t.Errorf("%s %s as %s = %s (%s), want %s (its comment says %s)", ex.name, mode, ex.policy, res.Verdict, res.Divergence, want, ex.expect)
	}
}

// TestRowsChanged: on MariaDB an UPDATE writing equal values counts zero
// rows, so without the writes column the second of two equal writes reads
// as rejected; clientFoundRows=true in --db counts rows found instead.
func TestRowsChanged(t *testing.T) {
	base := database(t, sqlprobe.MySQL)
	b, err := os.ReadFile("../../../docs/sql/mysql-conditional-update.sql")
	if err != nil {
		t.Fatal(err)
	}
	f, err := sqlprobe.Parse("no-writes.sql", strings.NewReader(strings.ReplaceAll(string(b), ", writes = writes + 1", "")))
	if err != nil {
		t.Fatal(err)
	}
	s := scenario(t, "../../../docs/sql/same-write-twice.json")
	for _, tt := range []struct{ db, want string }{{base, probe.Disagree}, {base + "?clientFoundRows=true", probe.Agree}} {
		r, err := sqlprobe.Open(t.Context(), f, tt.db, sqlprobe.Options{Policy: lab.Fenced})
		if err != nil {
			t.Fatal(err)
		}
		res, err := (&probe.Prober{Client: r, Policy: lab.Fenced}).Sequential(t.Context(), s)
		r.Close()
		if err != nil || res.Verdict != tt.want {
			t.Errorf("same-write-twice without the writes column on %s = %v, %v; want %s", sqlprobe.Redact(tt.db), res.Verdict, err, tt.want)
		}
	}
}
