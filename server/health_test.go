package server_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"fencelab/server/store"
)

// brokenStore fails every call with err, as a store adapter does when its
// database is down (store.ErrUnavailable) or full (store.ErrFull).
type brokenStore struct{ err error }

func (s brokenStore) SaveRun(context.Context, store.Run) (store.Run, error) {
	return store.Run{}, s.err
}
func (s brokenStore) Run(context.Context, string) (store.Run, error) { return store.Run{}, s.err }
func (s brokenStore) Secret(context.Context) ([]byte, error)         { return nil, s.err }
func (s brokenStore) Ping(context.Context) error                     { return s.err }

func TestHealthz(t *testing.T) {
	t.Parallel()
	for _, store := range []store.Runs{failingStore{}, brokenStore{store.ErrUnavailable}} {
		s := newServer(t, store, testSecret, nil)
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			rec := do(t, s, method, "/healthz", "", nil)
			checkResponse(t, method+" /healthz", rec, http.StatusOK, "text/plain; charset=utf-8")
		}
	}
}

func TestReadyz(t *testing.T) {
	t.Parallel()
	ok := newTestServer(t)
	rec := get(t, ok, "/readyz")
	checkResponse(t, "GET /readyz (SQLite)", rec, http.StatusOK, "text/plain; charset=utf-8")

	var log bytes.Buffer
	down := brokenStore{fmt.Errorf("ping: %w: connection refused (test)", store.ErrUnavailable)}
	rec = get(t, newServer(t, down, testSecret, &log), "/readyz")
	checkResponse(t, "GET /readyz (database down)", rec, http.StatusServiceUnavailable, "text/plain; charset=utf-8")
	if strings.Contains(rec.Body.String(), "refused") {
		t.Errorf("GET /readyz: body shows the driver's error: %q", rec.Body.String())
	}
	if !strings.Contains(log.String(), "connection refused (test)") {
		t.Errorf("GET /readyz: log lacks the store's error:\n%s", log.String())
	}
}

// TestStoreUnavailableOrFull: a store that is down answers 503 with
// Retry-After, a full one 507, both with a sentence saying nothing was
// saved, as a page or as JSON; the driver's words stay in the log.
func TestStoreUnavailableOrFull(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		err    error
		status int
		say    string
	}{
		{"unavailable", fmt.Errorf("save: %w: dial tcp: refused (test)", store.ErrUnavailable),
			http.StatusServiceUnavailable, "cannot be reached"},
		{"full", fmt.Errorf("save: %w: disk full (test)", store.ErrFull),
			http.StatusInsufficientStorage, "no room left"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log bytes.Buffer
			s := newServer(t, brokenStore{tt.err}, testSecret, &log)
			src := builtinSource(t, "paused-worker")
			recs := map[string]*httptest.ResponseRecorder{
				"POST /runs":     postForm(t, s, "/runs", url.Values{"scenario": {src}}),
				"POST /api/runs": postJSON(t, s, "/api/runs", src),
			}
			for call, rec := range recs {
				want := htmlType
				if strings.Contains(call, "/api/") {
					want = jsonType
				}
				checkResponse(t, call, rec, tt.status, want)
				if body := rec.Body.String(); !strings.Contains(body, tt.say) || strings.Contains(body, "(test)") {
					t.Errorf("%s: body should say %q without the driver's error, got:\n%.400s", call, tt.say, body)
				}
				if got := rec.Header().Get("Retry-After"); (tt.status == 503) != (got != "") {
					t.Errorf("%s: Retry-After = %q", call, got)
				}
			}
			if !strings.Contains(log.String(), "(test)") {
				t.Errorf("log lacks the store's error:\n%s", log.String())
			}
		})
	}
}

// downStore is a working store that can be taken down and brought back, as
// a database that restarts under a running server.
type downStore struct {
	store.Runs
	down atomic.Bool
}

func (s *downStore) err() error {
	if s.down.Load() {
		return fmt.Errorf("%w: the database is restarting (test)", store.ErrUnavailable)
	}
	return nil
}

func (s *downStore) SaveRun(ctx context.Context, r store.Run) (store.Run, error) {
	if err := s.err(); err != nil {
		return store.Run{}, err
	}
	return s.Runs.SaveRun(ctx, r)
}

func (s *downStore) Run(ctx context.Context, id string) (store.Run, error) {
	if err := s.err(); err != nil {
		return store.Run{}, err
	}
	return s.Runs.Run(ctx, id)
}

func (s *downStore) Ping(ctx context.Context) error {
	if err := s.err(); err != nil {
		return err
	}
	return s.Runs.Ping(ctx)
}

// TestStoreBackWithoutRestart takes the database down under a running
// server and brings it back: while it is down saves and reads are 503 and
// /readyz says not ready while /healthz stays up; once it is back the same
// server saves and reads again, and the run saved before is intact. (Each
// adapter's contract, storetest's Unavailable, checks that a real broken
// database gives store.ErrUnavailable and recovers the same way.)
func TestStoreBackWithoutRestart(t *testing.T) {
	t.Parallel()
	db := &downStore{Runs: openDB(t, t.TempDir())}
	s := newServer(t, db, testSecret, nil)
	src := builtinSource(t, "paused-worker")
	rec := postJSON(t, s, "/api/runs", src)
	checkResponse(t, "POST /api/runs before the database goes down", rec, http.StatusCreated, jsonType)
	before := rec.Header().Get("Location")

	db.down.Store(true)
	checkResponse(t, "POST /api/runs while the database is down", postJSON(t, s, "/api/runs", src),
		http.StatusServiceUnavailable, jsonType)
	checkResponse(t, "GET "+before+" while the database is down", get(t, s, before),
		http.StatusServiceUnavailable, htmlType)
	checkResponse(t, "GET /readyz while the database is down", get(t, s, "/readyz"),
		http.StatusServiceUnavailable, "text/plain; charset=utf-8")
	checkResponse(t, "GET /healthz while the database is down", get(t, s, "/healthz"),
		http.StatusOK, "text/plain; charset=utf-8")

	db.down.Store(false)
	checkResponse(t, "GET /readyz after the database is back", get(t, s, "/readyz"),
		http.StatusOK, "text/plain; charset=utf-8")
	checkResponse(t, "GET "+before+" after the database is back", get(t, s, before), http.StatusOK, htmlType)
	rec = postJSON(t, s, "/api/runs", builtinSource(t, "killed-worker"))
	checkResponse(t, "POST /api/runs after the database is back", rec, http.StatusCreated, jsonType)
	if after := rec.Header().Get("Location"); after == before || after == "" {
		t.Errorf("POST /api/runs of another scenario after the database is back: Location %q, want a new link (before: %q)", after, before)
	}
}
