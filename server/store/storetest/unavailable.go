package storetest

import (
	"errors"
	"testing"
	"time"

	"fencelab/server/store"
)

// testUnavailable breaks the database under an open store: the store says
// store.ErrUnavailable, and once the database is back the same store saves
// and reads again, without being opened again, and lost nothing. (What the
// server answers meanwhile, 503 and /readyz not ready, is the server's
// test: server/health_test.go.)
func testUnavailable(t *testing.T, h Harness) {
	fresh := h.Fresh
	if h.FreshFailing != nil {
		fresh = h.FreshFailing
	}
	db := fresh(t)
	s := open(t, db)
	before := save(t, s, Sample("before"))

	restore := db.Break()
	if _, err := s.SaveRun(t.Context(), Sample("during")); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("SaveRun while the database is down: error = %v, want store.ErrUnavailable", err)
	}
	if err := s.Ping(t.Context()); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Ping while the database is down: error = %v, want store.ErrUnavailable", err)
	}
	restore()

	// The first call after the database is back may still meet a
	// connection broken before; within a few seconds all must work.
	deadline := time.Now().Add(10 * time.Second)
	for s.Ping(t.Context()) != nil && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if err := s.Ping(t.Context()); err != nil {
		t.Fatalf("Ping after the database is back: %v, want nil", err)
	}
	save(t, s, Sample("after"))
	if got, err := s.Run(t.Context(), "after"); err != nil || got.ID != "after" {
		t.Errorf("Run(%q) saved after the database is back = %v, %v; want it", "after", got.ID, err)
	}
	if got, err := s.Run(t.Context(), before.ID); err != nil || got.ID != before.ID {
		t.Errorf("Run(%q) saved before the failure = %v, %v; want it", before.ID, got.ID, err)
	}
	if _, err := s.Run(t.Context(), "during"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Run(%q) refused while the database was down: error = %v, want store.ErrNotFound", "during", err)
	}
}
