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
