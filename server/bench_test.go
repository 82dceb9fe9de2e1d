package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"fencelab/static"
)

// serve sends one request through the whole handler (routing, middleware,
// error handler, SQLite) and fails the benchmark on an unexpected status.
func serve(b *testing.B, h http.Handler, req func() *http.Request, status int) {
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req())
		if rec.Code != status {
			b.Fatalf("status %d, want %d: %s", rec.Code, status, rec.Body.String())
		}
	}
}

// BenchmarkScenarioPage renders /scenarios/paused-worker: replay, table
// and diagram.
func BenchmarkScenarioPage(b *testing.B) {
	h, _ := newTestServer(b)
	serve(b, h, func() *http.Request { return httptest.NewRequest(http.MethodGet, "/scenarios/paused-worker", nil) }, http.StatusOK)
}

// BenchmarkRunPage renders a saved run: a SQLite read, the stored trace
// decoded, a fresh replay to compare, the page.
func BenchmarkRunPage(b *testing.B) {
	h, _ := newTestServer(b)
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/api/runs", strings.NewReader(builtinSource(b, "paused-worker")))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(rec, req)
	var saved struct{ ID string }
	if err := json.Unmarshal(rec.Body.Bytes(), &saved); err != nil || saved.ID == "" {
		b.Fatalf("save: %d %s", rec.Code, rec.Body.String())
	}
	serve(b, h, func() *http.Request { return httptest.NewRequest(http.MethodGet, "/r/"+saved.ID, nil) }, http.StatusOK)
}

// BenchmarkAPIReplay is POST /api/replay of paused-worker, the same body
// each time: after the first, the answer comes from memory.
func BenchmarkAPIReplay(b *testing.B) {
	h, _ := newTestServer(b)
	src := builtinSource(b, "paused-worker")
	serve(b, h, func() *http.Request {
		req := httptest.NewRequest(http.MethodPost, "/api/replay", strings.NewReader(src))
		req.Header.Set("Content-Type", "application/json")
		return req
	}, http.StatusOK)
}

// BenchmarkEditorPreview is the editor's live re-run after a drop: the
// form of paused-worker in, the result fragment out.
func BenchmarkEditorPreview(b *testing.B) {
	h, _ := newTestServer(b)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/lab?from=paused-worker", nil))
	form := editorForm(b, parsePage(b, rec.Body.Bytes()))
	serve(b, h, func() *http.Request {
		req := httptest.NewRequest(http.MethodPost, "/lab/preview", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return req
	}, http.StatusOK)
}

// BenchmarkStaticFile is a hashed stylesheet from memory: the floor of
// what the middleware costs.
func BenchmarkStaticFile(b *testing.B) {
	h, _ := newTestServer(b)
	target := static.URL("css/site.css")
	serve(b, h, func() *http.Request { return httptest.NewRequest(http.MethodGet, target, nil) }, http.StatusOK)
}

// BenchmarkAPIReplayNew is POST /api/replay of a scenario never posted
// before (paused-worker under a new title each time): parse, replay, JSON.
func BenchmarkAPIReplayNew(b *testing.B) {
	h, _ := newTestServer(b)
	src := builtinSource(b, "paused-worker")
	n := 0
	serve(b, h, func() *http.Request {
		n++
		body := strings.Replace(src, `"title": "`, `"title": "`+strconv.Itoa(n)+" ", 1)
		req := httptest.NewRequest(http.MethodPost, "/api/replay", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		return req
	}, http.StatusOK)
}
