package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"fencelab/lab"
	"fencelab/server/store"
	"fencelab/views/paths"
)

// oneRunStore holds one run, which a test may swap: a saved run never
// changes, so the server may remember what it worked out from it.
type oneRunStore struct {
	failingStore
	mu  sync.Mutex
	run store.Run
}

func (s *oneRunStore) Run(_ context.Context, id string) (store.Run, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id != s.run.ID {
		return store.Run{}, store.ErrNotFound
	}
	return s.run, nil
}

func (s *oneRunStore) set(run store.Run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.run = run
}

// TestDriftMemo: how today's engine differs on a run is worked out once
// and kept: a second view (another page, not the page cache's) gives the
// remembered answer although the stored run now replays cleanly. The
// memo's bound is its cache's (server/internal/lru, TestLRUBound).
func TestDriftMemo(t *testing.T) {
	t.Parallel()
	src := builtinSource(t, "paused-worker")
	sc, err := lab.Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	canonical, err := json.Marshal(sc) // as a store keeps it
	if err != nil {
		t.Fatal(err)
	}
	// Decodes as before, but today's engine refuses the unknown field.
	refused := append([]byte(`{"retired":true,`), canonical[1:]...)
	const id = "driftmemodrift00"
	trace := lab.Replay(sc).AppendJSON(nil)
	st := &oneRunStore{run: store.Run{ID: id, Scenario: refused, Trace: trace}}
	s := newServer(t, st, testSecret, nil)

	rec := get(t, s, paths.RunPath(id))
	checkResponse(t, "GET run of a refused scenario", rec, http.StatusOK, htmlType)
	if !strings.Contains(rec.Body.String(), "no longer accepts") {
		t.Fatalf("GET %s (scenario with an unknown field): page does not say the engine refuses it:\n%.600s", paths.RunPath(id), rec.Body.String())
	}
	st.set(store.Run{ID: id, Scenario: canonical, Trace: trace})
	again := paths.Link(paths.RunPath(id), "", []lab.Policy{lab.Unfenced})
	rec = get(t, s, again)
	checkResponse(t, "GET run again", rec, http.StatusOK, htmlType)
	if !strings.Contains(rec.Body.String(), "no longer accepts") {
		t.Errorf("GET %s after the stored run changed: page does not give the remembered answer", again)
	}
	if got := parsePage(t, rec.Body.Bytes()).columns(); len(got) != 1 || got[0] != string(lab.Unfenced) {
		t.Errorf("GET %s: columns %q, want [unfenced] (a fresh render, not the page cache's)", again, got)
	}
}
