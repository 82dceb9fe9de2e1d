package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"fencelab/server"
	"fencelab/static"
	"fencelab/views/paths"
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

// requests makes requests like httptest.NewRequest(method, target) with
// the given header fields (name, value, ...), each with its own body,
// copying one made once: httptest parses each request from text through a
// new 4 KB reader, which the benchmark would measure with the server.
func requests(method, target string, header ...string) func(body string) *http.Request {
	base := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		base.Header.Set(header[i], header[i+1])
	}
	return func(body string) *http.Request {
		r := new(http.Request)
		*r = *base
		r.Header = base.Header.Clone()
		r.Body, r.ContentLength = http.NoBody, 0
		if body != "" {
			r.Body, r.ContentLength = io.NopCloser(strings.NewReader(body)), int64(len(body))
		}
		return r
	}
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
	h := newTestServer(b)
	req := requests(http.MethodGet, "/scenarios/paused-worker")
	serve(b, h, func() *http.Request { return req("") }, http.StatusOK)
}

// BenchmarkRunPage renders a saved run: a SQLite read, the stored trace
// decoded, a fresh replay to compare, the page.
func BenchmarkRunPage(b *testing.B) {
	h := newTestServer(b)
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/api/runs", strings.NewReader(builtinSource(b, "paused-worker")))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(rec, req)
	var saved struct{ ID string }
	if err := json.Unmarshal(rec.Body.Bytes(), &saved); err != nil || saved.ID == "" {
		b.Fatalf("save: %d %s", rec.Code, rec.Body.String())
	}
	page := requests(http.MethodGet, paths.RunPath(saved.ID))
	serve(b, h, func() *http.Request { return page("") }, http.StatusOK)
}

// BenchmarkAPIReplay is POST /api/replay of paused-worker, the same body
// each time: after the first, the answer comes from memory, as it is
// (identity) or gzipped (gzip: browsers, curl --compressed and Go's HTTP
// client ask for it).
func BenchmarkAPIReplay(b *testing.B) {
	for _, enc := range []string{"identity", "gzip"} {
		b.Run(enc, func(b *testing.B) {
			h := newTestServer(b)
			src := builtinSource(b, "paused-worker")
			req := requests(http.MethodPost, "/api/replay", "Content-Type", "application/json", "Accept-Encoding", enc)
			w := serve(b, h, func() *http.Request { return req(src) }, http.StatusOK)
			if got, want := w.header.Get("Content-Encoding"), strings.TrimPrefix(enc, "identity"); got != want {
				b.Errorf("Content-Encoding %q, want %q", got, want)
			}
		})
	}
}

// BenchmarkEditorPreview is the editor's live re-run after a drop: the
// form of paused-worker in, the result fragment out.
func BenchmarkEditorPreview(b *testing.B) {
	h := newTestServer(b)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/lab?from=paused-worker", nil))
	body := editorForm(b, parsePage(b, rec.Body.Bytes())).Encode()
	req := requests(http.MethodPost, "/lab/preview", "Content-Type", "application/x-www-form-urlencoded")
	serve(b, h, func() *http.Request { return req(body) }, http.StatusOK)
}

// BenchmarkStaticFile is a hashed stylesheet from memory: the floor of
// what the middleware costs.
func BenchmarkStaticFile(b *testing.B) {
	h := newTestServer(b)
	target := static.URL("css/site.css")
	req := requests(http.MethodGet, target)
	serve(b, h, func() *http.Request { return req("") }, http.StatusOK)
}

// BenchmarkAPIReplayNew is POST /api/replay of a scenario never posted
// before (paused-worker under a new title each time): parse, replay, JSON.
func BenchmarkAPIReplayNew(b *testing.B) {
	h := newTestServer(b)
	src := builtinSource(b, "paused-worker")
	req := requests(http.MethodPost, "/api/replay", "Content-Type", "application/json")
	n := 0
	serve(b, h, func() *http.Request {
		n++
		body := strings.Replace(src, `"title": "`, `"title": "`+strconv.Itoa(n)+" ", 1)
		return req(body)
	}, http.StatusOK)
}

// BenchmarkAccessLog is the scenario page from memory, the cheapest page
// and so the one where the access log weighs most, without the log and
// with it (a text line per request, as `fencelab serve` writes, here to a
// discarding writer: the batching of the real one is not measured). The
// difference is the log's cost per request.
func BenchmarkAccessLog(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := map[bool]string{false: "off", true: "on"}[on]
		b.Run(name, func(b *testing.B) {
			db := openDB(b, b.TempDir())
			secret, err := db.Secret(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			cfg := server.Config{Store: db, Library: testLibrary(b), Secret: secret,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
			if on {
				cfg.AccessLog = slog.New(slog.NewTextHandler(io.Discard, nil))
			}
			h, err := server.New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			req := requests(http.MethodGet, "/scenarios/paused-worker")
			serve(b, h, func() *http.Request { return req("") }, http.StatusOK)
		})
	}
}
