package diagram

import (
	"strings"
	"testing"

	"fencelab/lab"
)

// TestModel3Marks checks, in the standalone SVG, the marks model 3 adds:
// two lease bars at once after a split grant, said in words; a lease cut by
// a restart of a memory scope; the version a read saw; and a stale rmw
// write marked in words, whether it was applied or refused.
func TestModel3Marks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		scenario string
		p        lab.Policy
		want     []string // substrings of the SVG, in order
		bars     int      // lease bars (held, not ghosts)
	}{
		{"split-brain", lab.Unfenced, []string{"split grant", "A&#39;s 41 still valid", "check: valid"}, 2},
		{"lease-service-forgets", lab.Fenced, []string{"reads v0: empty", "restart: forgets", "lease 41 forgotten", "stale: read v1,", "now v2"}, 2},
		{"stale-read-fresh-token", lab.Fenced, []string{"reads v0: empty", "stale: read v0,", "now v1"}, 3},
		{"stale-read-fresh-token", lab.CAS, []string{"stale: read v0,", "now v1"}, 3},
	}
	for _, tt := range tests {
		s := builtin(t, tt.scenario)
		svg := string(renderFile(t, s, lab.Replay(s), tt.p))
		rest := svg
		for _, w := range tt.want {
			k := strings.Index(rest, w)
			if k < 0 {
				t.Errorf("SVG(%s, %s) lacks %q after the marks before it", tt.scenario, tt.p, w)
				break
			}
			rest = rest[k+len(w):]
		}
		if n := strings.Count(svg, `class="lease"`); n != tt.bars {
			t.Errorf("SVG(%s, %s) has %d lease bars, want %d", tt.scenario, tt.p, n, tt.bars)
		}
	}
}
