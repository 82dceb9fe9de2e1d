package logs

import (
	"testing"
	"time"
)

// TestSkewOrderings counts the orderings a skew allows: a scheduler's two
// grants and a worker's send 5 ms apart, the storage's deliver 10 ms
// later. Within the skew only each host's order and a deliver after its
// send remain.
func TestSkewOrderings(t *testing.T) {
	sched := "t=1000.000 who=A msg=grant tok=1\nt=1000.010 who=B msg=grant tok=2\n"
	worker := "t=1000.005 who=A msg=sent req=r val=x\n"
	store := "t=1000.020 msg=recv req=r out=ok\n"
	tests := []struct {
		skew time.Duration
		want int64
	}{
		{0, 1},                    // every pair is apart: the times order everything
		{7 * time.Millisecond, 3}, // A's send goes before, between or after them... but before A's inferred expiry
		// B's grant forces an expiry of A's lease after A's send: grant A
		// goes anywhere before B's, the deliver anywhere after the send.
		{100 * time.Millisecond, 11},
	}
	for _, tt := range tests {
		res, err := run(t, simpleMap, Options{Explore: true, Skew: tt.skew},
			file{"sched.log", sched}, file{"worker.log", worker}, file{"store.log", store})
		if err != nil {
			t.Fatalf("import --skew %s: %v", tt.skew, err)
		}
		if got := res.Orderings.Orderings.Int64(); got != tt.want || !res.Orderings.Complete {
			t.Errorf("import --skew %s: %d orderings, want %d", tt.skew, got, tt.want)
		}
	}
}

// TestGrantOffsetWords: a host that logs a token's grant after another
// host logged using it is said to have granted it late, in those words.
func TestGrantOffsetWords(t *testing.T) {
	t.Parallel()
	res, err := run(t, simpleMap, Options{},
		file{"sched.log", "t=2026-11-05T07:41:00Z who=w1 msg=grant tok=41\nt=2026-11-05T07:41:10Z who=w2 msg=grant tok=42\n"},
		file{"w2.log", "t=2026-11-05T07:41:08.5Z who=w2 msg=sent req=r2 tok=42 val=v2\n"},
		file{"store.log", "t=2026-11-05T07:41:10.6Z msg=recv req=r2 out=ok\n"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Clocks.Offsets) != 1 {
		t.Fatalf("offsets %+v, want one, sched's", res.Clocks.Offsets)
	}
	want := "sched's clock runs at least 1.5s ahead of w2's: sched.log:2 granted token 42 after w2.log:1 used it; " +
		"sched's lines are moved 1.5s earlier"
	if got := res.Clocks.Offsets[0].Words; got != want {
		t.Errorf("offset words\n%s\nwant\n%s", got, want)
	}
}
