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
// error handler, SQLite) and fails the benchmark on an unexpected status
// or an empty body. The answer goes to a sink that counts its bytes, as a
// connection would take them: a recorder growing a buffer for each
// answer would be measured along with the server.
func serve(b *testing.B, h http.Handler, req func() *http.Request, status int) *sink {
	b.ReportAllocs()
	w := &sink{}
	for b.Loop() {
		w.header, w.status, w.n = make(http.Header), 0, 0
		h.ServeHTTP(w, req())
		if w.status != status || w.n == 0 {
			b.Fatalf("status %d with %d bytes, want %d and a body", w.status, w.n, status)
		}
	}
	return w
}

// sink is the response writer of the benchmarks: it keeps the status and
// the header and counts the body.
type sink struct {
	header http.Header
	status int
	n      int
}

func (w *sink) Header() http.Header { return w.header }

func (w *sink) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *sink) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.n += len(p)
	return len(p), nil
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
// each time: after the first, the answer comes from memory, as it is
// (identity) or gzipped (gzip: browsers, curl --compressed and Go's HTTP
// client ask for it).
func BenchmarkAPIReplay(b *testing.B) {
	for _, enc := range []string{"identity", "gzip"} {
		b.Run(enc, func(b *testing.B) {
			h, _ := newTestServer(b)
			src := builtinSource(b, "paused-worker")
			w := serve(b, h, func() *http.Request {
				req := httptest.NewRequest(http.MethodPost, "/api/replay", strings.NewReader(src))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept-Encoding", enc)
				return req
			}, http.StatusOK)
			if got, want := w.header.Get("Content-Encoding"), strings.TrimPrefix(enc, "identity"); got != want {
				b.Errorf("Content-Encoding %q, want %q", got, want)
			}
		})
	}
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
