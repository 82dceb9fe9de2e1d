package server

import (
	"bytes"

	"fencelab/lab"
	"fencelab/server/internal/lru"
	"fencelab/server/store"
)

// maxDrifts bounds the remembered answers; past it the least recently
// viewed run is forgotten, which costs one replay if it is viewed again.
const maxDrifts = 4096

// driftMemo remembers, per saved run, how today's engine differs on it. A
// run never changes and neither does the engine of a running process, so
// the answer is worked out once, not on every view of the page.
type driftMemo struct{ seen *lru.Cache[string] }

func newDriftMemo() *driftMemo { return &driftMemo{seen: lru.New[string](maxDrifts)} }

// of is drift(run), remembered by run id.
func (m *driftMemo) of(run store.Run) string {
	if d, ok := m.seen.Get(run.ID); ok {
		return d
	}
	d := drift(run)
	m.seen.Put(run.ID, d, 1)
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
