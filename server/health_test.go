package server_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
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
	ok, _ := newTestServer(t)
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
