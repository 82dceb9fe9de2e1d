package probe_test

import (
	"fmt"
	"testing"

	"fencelab/lab/probe"
)

// rec is a write by worker w with token t, sent and answered at the ticks.
func rec(seq int, t int64, outcome string, sent, answered int64) probe.Record {
	return probe.Record{Seq: seq, Worker: seq, Token: t, Value: fmt.Sprintf("v%d", seq), Outcome: outcome, Sent: sent, Answered: answered}
}

func hold(v string, t int64) *probe.Holding { return &probe.Holding{Value: &v, Token: &t} }

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		checker probe.Checker
		recs    []probe.Record
		final   *probe.Holding
		kind    string // "" for none
		after   int    // the Seq of the request at fault
	}{
		{"overlapping writes may land in any order", probe.Checker{},
			[]probe.Record{rec(1, 5, "applied", 1, 4), rec(2, 4, "applied", 2, 3)}, hold("v1", 5), "", 0},
		{"lower token sent after a higher one was acknowledged", probe.Checker{},
			[]probe.Record{rec(1, 5, "applied", 1, 2), rec(2, 4, "applied", 3, 4)}, nil, "stale-acknowledged", 2},
		{"equal token is fine when fenced", probe.Checker{},
			[]probe.Record{rec(1, 5, "applied", 1, 2), rec(2, 5, "applied", 3, 4)}, hold("v2", 5), "", 0},
		{"equal token is stale when strict", probe.Checker{Strict: true},
			[]probe.Record{rec(1, 5, "applied", 1, 2), rec(2, 5, "applied", 3, 4)}, nil, "stale-acknowledged", 2},
		{"rejected although nothing higher was ever sent", probe.Checker{},
			[]probe.Record{rec(1, 9, "applied", 1, 2), rec(2, 10, "rejected", 3, 4)}, nil, "valid-rejected", 2},
		{"rejected below a write still in flight", probe.Checker{},
			[]probe.Record{rec(1, 9, "applied", 1, 4), rec(2, 8, "rejected", 2, 3)}, hold("v1", 9), "", 0},
		{"an op applied twice", probe.Checker{Idempotent: true},
			[]probe.Record{{Seq: 1, Token: 3, Op: "k", Outcome: "applied", Sent: 1, Answered: 2}, {Seq: 2, Token: 3, Op: "k", Outcome: "applied", Sent: 3, Answered: 4}},
			nil, "duplicate-applied", 2},
		{"final value not the highest acknowledged", probe.Checker{},
			[]probe.Record{rec(1, 5, "applied", 1, 4), rec(2, 4, "applied", 2, 3)}, hold("v2", 4), "final-value", 1},
		{"a failed write may have landed", probe.Checker{},
			[]probe.Record{rec(1, 5, "applied", 1, 2), rec(2, 6, "error", 3, 4)}, hold("v2", 6), "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.checker.Check(tt.recs, tt.final)
			switch {
			case tt.kind == "" && v != nil:
				t.Errorf("Check = %s: %s, want none", v.Kind, v.Words)
			case tt.kind != "" && v == nil:
				t.Errorf("Check = none, want %s", tt.kind)
			case tt.kind != "" && (v.Kind != tt.kind || v.After == nil || v.After.Seq != tt.after):
				t.Errorf("Check = %s at #%v: %s, want %s at #%d", v.Kind, v.After, v.Words, tt.kind, tt.after)
			}
		})
	}
}

// history builds n requests of 8 workers taking turns with increasing
// tokens, every fourth one late and rejected, as a correct receiver answers.
func history(n int) []probe.Record {
	recs := make([]probe.Record, n)
	for i := range recs {
		t := int64(i/2 + 1)
		out := "applied"
		if i%4 == 3 {
			t, out = t-2, "rejected"
		}
		recs[i] = probe.Record{Seq: i + 1, Worker: i % 8, Token: t, Outcome: out, Sent: int64(2*i + 1), Answered: int64(2*i + 2)}
	}
	return recs
}

func TestCheckCorrectHistory(t *testing.T) {
	t.Parallel()
	recs := history(10_000)
	last := recs[len(recs)-2]
	if v := (probe.Checker{}).Check(recs, &probe.Holding{Value: &last.Value, Token: &last.Token}); v != nil {
		t.Fatalf("Check of a correct history = %s: %s", v.Kind, v.Words)
	}
}

// BenchmarkCheck1M checks a history of 10^6 requests; compare with
// BenchmarkCheck100k: the checker is linear, so 10x the requests take
// about 10x the time.
func BenchmarkCheck1M(b *testing.B)   { benchCheck(b, 1_000_000) }
func BenchmarkCheck100k(b *testing.B) { benchCheck(b, 100_000) }

func benchCheck(b *testing.B, n int) {
	recs := history(n)
	b.ReportAllocs()
	for b.Loop() {
		if v := (probe.Checker{}).Check(recs, nil); v != nil {
			b.Fatal(v.Words)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/request")
}

// cw is an rmw write (cas) that expects version v, sent and answered at
// the ticks.
func cw(seq int, v int64, outcome string, sent, answered int64) probe.Record {
	r := rec(seq, 0, outcome, sent, answered)
	r.Expect = &v
	return r
}

func holdAt(v string, version int64) *probe.Holding {
	return &probe.Holding{Value: &v, Version: &version}
}

func TestCheckVersions(t *testing.T) {
	cas := probe.Checker{Versions: true}
	tests := []struct {
		name  string
		recs  []probe.Record
		final *probe.Holding
		kind  string // "" for none
		after int    // the Seq of the request at fault
	}{
		{"one write per version, then a stale one rejected",
			[]probe.Record{cw(1, 0, "applied", 1, 2), cw(2, 1, "applied", 3, 4), cw(3, 1, "rejected", 5, 6)}, holdAt("v2", 2), "", 0},
		{"two writers on one version, one rejected",
			[]probe.Record{cw(1, 0, "applied", 1, 3), cw(2, 0, "rejected", 2, 4)}, holdAt("v1", 1), "", 0},
		{"two writers on one version, both applied",
			[]probe.Record{cw(1, 0, "applied", 1, 3), cw(2, 0, "applied", 2, 4)}, nil, "lost-update", 2},
		{"an older version applied after a newer one was acknowledged",
			[]probe.Record{cw(1, 0, "applied", 1, 2), cw(2, 1, "applied", 3, 4), cw(3, 0, "applied", 5, 6)}, nil, "lost-update", 3},
		{"rejected although nothing could have moved the resource",
			[]probe.Record{cw(1, 0, "applied", 1, 2), cw(2, 1, "rejected", 3, 4)}, nil, "valid-rejected", 2},
		{"rejected behind a write still in flight",
			[]probe.Record{cw(1, 1, "applied", 1, 4), cw(2, 1, "rejected", 2, 3)}, holdAt("v1", 2), "", 0},
		{"final version not above the highest applied",
			[]probe.Record{cw(1, 0, "applied", 1, 2), cw(2, 1, "applied", 3, 4)}, holdAt("v2", 1), "final-value", 2},
		{"versions that skip, as a sequence does",
			[]probe.Record{cw(1, 0, "applied", 1, 2), cw(2, 36914, "applied", 3, 4), cw(3, 36914, "rejected", 5, 6)}, holdAt("v2", 36950), "", 0},
		{"final value not the highest applied write's",
			[]probe.Record{cw(1, 0, "applied", 1, 2), cw(2, 1, "applied", 3, 4)}, holdAt("v1", 2), "final-value", 2},
		{"a failed write may have landed",
			[]probe.Record{cw(1, 0, "applied", 1, 2), cw(2, 1, "error", 3, 4)}, holdAt("v2", 2), "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := cas.Check(tt.recs, tt.final)
			switch {
			case tt.kind == "" && v != nil:
				t.Errorf("Check = %s: %s, want none", v.Kind, v.Words)
			case tt.kind != "" && v == nil:
				t.Errorf("Check = none, want %s", tt.kind)
			case tt.kind != "" && (v.Kind != tt.kind || v.After == nil || v.After.Seq != tt.after):
				t.Errorf("Check = %s at #%v: %s, want %s at #%d", v.Kind, v.After, v.Words, tt.kind, tt.after)
			}
		})
	}
}
