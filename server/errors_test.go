package server_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"fencelab/server/store"
	"fencelab/views/paths"
)

// TestErrorPageFailing: when the error page itself fails to render (here
// because the client's request was cancelled, which every templ component
// checks), the answer still has the error's status and words, not an
// empty 200, and the failure is logged.
func TestErrorPageFailing(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	s := newServer(t, &errStore{err: store.ErrNotFound}, testSecret, &log)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	target := paths.RunPath("AAAAAAAAAAAAAAAA")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil).WithContext(ctx))
	if rec.Code != http.StatusNotFound {
		t.Errorf("GET %s, cancelled: status = %d, want 404", target, rec.Code)
	}
	if body := rec.Body.String(); !strings.Contains(body, "There is no saved run at this address.") {
		t.Errorf("GET %s, cancelled: body = %q, want the error's message", target, body)
	}
	var logged bool
	for line := range strings.Lines(log.String()) {
		logged = logged || strings.Contains(line, "write error response") && strings.Contains(line, context.Canceled.Error())
	}
	if !logged {
		t.Errorf("GET %s, cancelled: log = %q, want the render failure", target, log.String())
	}
}

// errStore fails every read of a run with its error, wrapped.
type errStore struct {
	failingStore
	mu  sync.Mutex
	err error
}

func (s *errStore) Run(context.Context, string) (store.Run, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return store.Run{}, fmt.Errorf("some operation: %w", s.err)
}

func (s *errStore) set(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
}

// TestStoreProblems: every code of the store's error is answered from the
// one table, with its status and words, also when wrapped; a room error
// is no different from a run's. A code the server answers with anything
// but a 500 must have its case here.
func TestStoreProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err    *store.Error
		status int
		words  string
	}{
		{store.ErrNotFound, http.StatusNotFound, "no saved run"},
		{store.ErrNoRoom, http.StatusNotFound, "no live room"},
		{store.ErrNoQuestion, http.StatusConflict, "No question was asked"},
		{store.ErrAnswered, http.StatusConflict, "answered"},
		{store.ErrCodeTaken, http.StatusServiceUnavailable, "room code"},
		{store.ErrNoHandover, http.StatusForbidden, "hand-over code"},
		{store.ErrUnavailable, http.StatusServiceUnavailable, "cannot be reached"},
		{store.ErrFull, http.StatusInsufficientStorage, "no room left"},
		{store.ErrGone, http.StatusGone, "taken down by the lab’s operators."},
	}
	target := paths.APIRunPath("AAAAAAAAAAAAAAAA")
	st := &errStore{}
	s := newServer(t, st, testSecret, nil)
	covered := map[store.Code]bool{}
	for _, tt := range tests {
		covered[tt.err.Code] = true
		t.Run(tt.err.Error(), func(t *testing.T) {
			st.set(tt.err)
			rec := get(t, s, target)
			if rec.Code != tt.status || !strings.Contains(rec.Body.String(), tt.words) {
				t.Errorf("GET %s, store fails with wrapped %v = %d %s, want %d saying %q", target, tt.err, rec.Code, rec.Body, tt.status, tt.words)
			}
		})
	}
	// The codes are small integers from 1: a code answered from the table
	// shows as a status other than 500.
	for code := store.Code(1); code < 64; code++ {
		st.set(&store.Error{Code: code})
		rec := get(t, s, target)
		if rec.Code != http.StatusInternalServerError && !covered[code] {
			t.Errorf("GET %s, store fails with code %d = %d: storeProblems answers a code the test does not cover", target, code, rec.Code)
		}
	}
}
