package server

import (
	"strings"
	"testing"

	"fencelab/server/store"
)

// TestDriftMemo: the answer for a run is worked out once and kept, and
// the memo stays bounded.
func TestDriftMemo(t *testing.T) {
	m := newDriftMemo()
	bad := store.Run{ID: "a", Scenario: []byte(`{"version":2}`)}
	if got := m.of(bad); !strings.Contains(got, "no longer accepts") {
		t.Fatalf("of(invalid scenario) = %q, want the engine to refuse it", got)
	}
	bad.Scenario = []byte(`{"version":1,"title":"t","events":[]}`)
	bad.Trace = []byte(`{"policies":[]}`)
	if got := m.of(bad); !strings.Contains(got, "no longer accepts") {
		t.Errorf("of(run a) again = %q, want the remembered answer", got)
	}
	for i := range maxDrifts + 10 {
		m.of(store.Run{ID: "r" + string(rune('a'+i%26)) + strings.Repeat("x", i/26), Scenario: []byte(`{}`)})
	}
	if n := len(m.seen); n > maxDrifts {
		t.Errorf("memo holds %d answers, want at most %d", n, maxDrifts)
	}
}
