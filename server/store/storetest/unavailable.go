package storetest

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"fencelab/scenarios"
	"fencelab/server/store"
)

// testUnavailable breaks the database under a running server: the store
// says store.ErrUnavailable, the server answers 503 with a sentence and
// /readyz says not ready; once the database is back, the same store and
// server save and read again, without a restart, and lost nothing.
func testUnavailable(t *testing.T, h Harness) {
	fresh := h.Fresh
	if h.FreshFailing != nil {
		fresh = h.FreshFailing
	}
	db := fresh(t)
	s := open(t, db)
	before := save(t, s, Sample("before"))
	if h.Serve == nil {
		t.Fatal("Harness.Serve is nil: the contract checks what the server answers over a broken database")
	}
	srv := h.Serve(t, s)
	src := paused(t)

	restore := db.Break()
	if _, err := s.SaveRun(t.Context(), Sample("during")); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("SaveRun while the database is down: error = %v, want store.ErrUnavailable", err)
	}
	if err := s.Ping(t.Context()); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Ping while the database is down: error = %v, want store.ErrUnavailable", err)
	}
	rec := request(srv, http.MethodPost, "/api/runs", src)
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "cannot be reached") {
		t.Errorf("POST /api/runs while the database is down: %d %s, want 503 saying it cannot be reached",
			rec.Code, rec.Body.String())
	}
	if rec := request(srv, http.MethodGet, "/readyz", ""); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("GET /readyz while the database is down: %d, want 503", rec.Code)
	}
	if rec := request(srv, http.MethodGet, "/healthz", ""); rec.Code != http.StatusOK {
		t.Errorf("GET /healthz while the database is down: %d, want 200", rec.Code)
	}
	restore()

	// The first request after the database is back may still meet a
	// connection broken before; within a few seconds all must work.
	deadline := time.Now().Add(10 * time.Second)
	for s.Ping(t.Context()) != nil && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if err := s.Ping(t.Context()); err != nil {
		t.Fatalf("Ping after the database is back: %v, want nil", err)
	}
	if rec := request(srv, http.MethodGet, "/readyz", ""); rec.Code != http.StatusOK {
		t.Errorf("GET /readyz after the database is back: %d, want 200", rec.Code)
	}
	rec = request(srv, http.MethodPost, "/api/runs", src)
	if rec.Code != http.StatusCreated {
		t.Fatalf("POST /api/runs after the database is back: %d %s, want 201", rec.Code, rec.Body.String())
	}
	link := strings.TrimPrefix(rec.Header().Get("Location"), "http://example.com")
	if rec := request(srv, http.MethodGet, link, ""); rec.Code != http.StatusOK {
		t.Errorf("GET %s after the database is back: %d, want 200", link, rec.Code)
	}
	if got, err := s.Run(t.Context(), before.ID); err != nil || got.ID != before.ID {
		t.Errorf("Run(%q) saved before the failure = %v, %v; want it", before.ID, got.ID, err)
	}
}

func paused(t *testing.T) string {
	b, err := scenarios.FS.ReadFile("paused-worker.json")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func request(h http.Handler, method, target, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}
