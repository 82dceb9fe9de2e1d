package server

import (
	"bytes"
	"sync"

	"fencelab/lab"
	"fencelab/server/store"
)

// maxDrifts bounds the remembered answers; past it they are forgotten all
// at once, which costs one replay per run viewed again.
const maxDrifts = 4096

// driftMemo remembers, per saved run, how today's engine differs on it. A
// run never changes and neither does the engine of a running process, so
// the answer is worked out once, not on every view of the page.
type driftMemo struct {
	mu   sync.Mutex
	seen map[string]string
}

func newDriftMemo() *driftMemo { return &driftMemo{seen: map[string]string{}} }

// of is drift(run), remembered by run id.
func (m *driftMemo) of(run store.Run) string {
	m.mu.Lock()
	d, ok := m.seen[run.ID]
	m.mu.Unlock()
	if ok {
		return d
	}
	d = drift(run)
	m.mu.Lock()
	if len(m.seen) >= maxDrifts {
		clear(m.seen)
	}
	m.seen[run.ID] = d
	m.mu.Unlock()
	return d
}

// drift says how today's engine differs on a saved run: empty when a fresh
// replay gives the stored trace byte for byte.
func drift(run store.Run) string {
	sc, err := lab.Parse(bytes.NewReader(run.Scenario))
	if err != nil {
		return "Today’s engine no longer accepts this scenario (" + err.Error() + ")."
	}
	if fresh := lab.Replay(sc).AppendJSON(nil); !bytes.Equal(fresh, run.Trace) {
		return "Replaying the saved scenario now gives other decisions, reasons or values."
	}
	return ""
}
