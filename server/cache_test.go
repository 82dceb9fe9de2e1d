package server_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"fencelab/static"
	"fencelab/views/paths"
)

// fetch sends a GET with the given headers through the whole handler.
func fetch(t *testing.T, h http.Handler, target string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	checkSecurityHeaders(t, "GET "+target, rec.Result().Header)
	return rec
}

// gunzip decodes a gzipped body, failing the test when it is not one.
func gunzip(t *testing.T, call string, body []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("%s: body is not gzip: %v", call, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: gunzip: %v", call, err)
	}
	return b
}

// TestStaticFiles: a hashed address is kept for a year, a plain one is
// checked again, both answer 304 to their ETag and gzip when asked.
func TestStaticFiles(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	plain := fetch(t, s, "/static/css/site.css", nil)
	hashedURL := static.URL("css/site.css")
	if hashedURL == "/static/css/site.css" || !strings.HasPrefix(hashedURL, "/static/css/site.") {
		t.Fatalf("static.URL(css/site.css) = %q, want a hashed address", hashedURL)
	}
	hashed := fetch(t, s, hashedURL, nil)
	tests := []struct {
		name    string
		rec     *httptest.ResponseRecorder
		control string
	}{
		{"plain", plain, "no-cache"},
		{"hashed", hashed, "public, max-age=31536000, immutable"},
	}
	for _, tt := range tests {
		if tt.rec.Code != http.StatusOK {
			t.Fatalf("%s: status %d", tt.name, tt.rec.Code)
		}
		if got := tt.rec.Header().Get("Cache-Control"); got != tt.control {
			t.Errorf("%s: Cache-Control = %q, want %q", tt.name, got, tt.control)
		}
		if got := tt.rec.Header().Get("Content-Type"); got != "text/css; charset=utf-8" {
			t.Errorf("%s: Content-Type = %q", tt.name, got)
		}
	}
	if !bytes.Equal(plain.Body.Bytes(), hashed.Body.Bytes()) || plain.Body.Len() == 0 {
		t.Fatalf("hashed and plain addresses give different bodies (%d, %d bytes)", hashed.Body.Len(), plain.Body.Len())
	}
	etag := hashed.Header().Get("ETag")
	if again := fetch(t, s, hashedURL, map[string]string{"If-None-Match": etag}); again.Code != http.StatusNotModified || again.Body.Len() != 0 {
		t.Errorf("GET %s with If-None-Match %s: %d with %d bytes, want 304 and none", hashedURL, etag, again.Code, again.Body.Len())
	}
	gz := fetch(t, s, hashedURL, map[string]string{"Accept-Encoding": "gzip, br"})
	if gz.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("GET %s with Accept-Encoding gzip: Content-Encoding = %q", hashedURL, gz.Header().Get("Content-Encoding"))
	}
	if got := gunzip(t, hashedURL, gz.Body.Bytes()); !bytes.Equal(got, plain.Body.Bytes()) {
		t.Errorf("GET %s gzipped: decodes to %d bytes, want the %d of the file", hashedURL, len(got), plain.Body.Len())
	}
	refused := fetch(t, s, hashedURL, map[string]string{"Accept-Encoding": "gzip;q=0"})
	if refused.Header().Get("Content-Encoding") != "" {
		t.Errorf("GET %s with gzip;q=0: Content-Encoding = %q, want none", hashedURL, refused.Header().Get("Content-Encoding"))
	}
	stale := fetch(t, s, "/static/css/site.000000000000.css", nil)
	if stale.Code != http.StatusOK || stale.Header().Get("Cache-Control") != "no-cache" {
		t.Errorf("GET an old hash: %d, Cache-Control %q; want 200 and no-cache", stale.Code, stale.Header().Get("Cache-Control"))
	}
	if rec := fetch(t, s, "/static/css/nothing.000000000000.css", nil); rec.Code != http.StatusNotFound {
		t.Errorf("GET an unknown hashed file: %d, want 404", rec.Code)
	}
}

// TestCachedPages: a scenario page and a saved run are rendered once and
// then served as the same bytes, with a strong ETag, 304s and gzip.
func TestCachedPages(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	id := saveRun(t, s, "paused-worker")
	for _, target := range []string{"/", "/scenarios/paused-worker", paths.RunPath(id), paths.RunMarkdownPath(id), paths.RunSVGPath(id), paths.RunJSONPath(id), paths.APIRunPath(id)} {
		first := fetch(t, s, target, nil)
		second := fetch(t, s, target, nil)
		if first.Code != http.StatusOK || second.Code != http.StatusOK {
			t.Fatalf("GET %s: %d then %d", target, first.Code, second.Code)
		}
		if !bytes.Equal(first.Body.Bytes(), second.Body.Bytes()) {
			t.Errorf("GET %s twice: different bodies", target)
		}
		if got, want := first.Header().Get("Content-Length"), strconv.Itoa(first.Body.Len()); got != want {
			t.Errorf("GET %s: Content-Length %q, want %s", target, got, want)
		}
		etag := first.Header().Get("ETag")
		if !strings.HasPrefix(etag, `"`) || etag != second.Header().Get("ETag") {
			t.Errorf("GET %s: ETags %q then %q, want one strong ETag", target, etag, second.Header().Get("ETag"))
		}
		if first.Header().Get("Cache-Control") == "" {
			t.Errorf("GET %s: no Cache-Control", target)
		}
		if nm := fetch(t, s, target, map[string]string{"If-None-Match": etag}); nm.Code != http.StatusNotModified {
			t.Errorf("GET %s with its ETag: %d, want 304", target, nm.Code)
		}
		gz := fetch(t, s, target, map[string]string{"Accept-Encoding": "gzip"})
		if gz.Header().Get("Content-Encoding") != "gzip" {
			t.Errorf("GET %s with Accept-Encoding gzip: not gzipped", target)
			continue
		}
		if got := gunzip(t, target, gz.Body.Bytes()); !bytes.Equal(got, first.Body.Bytes()) {
			t.Errorf("GET %s gzipped: decodes to other bytes than the plain answer", target)
		}
		if got, want := gz.Header().Get("Content-Length"), strconv.Itoa(gz.Body.Len()); got != want {
			t.Errorf("GET %s gzipped: Content-Length %q, want %s", target, got, want)
		}
	}
}

// TestCachedPageKey: the order of ?p= does not make a second page, an
// unknown run is not kept, and a failing render is not kept either.
func TestCachedPageKey(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	a := fetch(t, s, "/scenarios/paused-worker?p=fenced&p=unfenced", nil)
	b := fetch(t, s, "/scenarios/paused-worker?p=unfenced&p=fenced&utm=x", nil)
	if a.Header().Get("ETag") != b.Header().Get("ETag") {
		t.Errorf("?p=fenced&p=unfenced and ?p=unfenced&p=fenced: ETags %q and %q, want one page", a.Header().Get("ETag"), b.Header().Get("ETag"))
	}
	c := fetch(t, s, "/scenarios/paused-worker?p=fenced", nil)
	if c.Header().Get("ETag") == a.Header().Get("ETag") {
		t.Errorf("?p=fenced and ?p=fenced&p=unfenced share an ETag")
	}
	// Asked for before it is saved, a run is a 404 that must not be kept:
	// two servers with one secret give the run the same id.
	x := newServer(t, openDB(t, t.TempDir()), testSecret, nil)
	y := newServer(t, openDB(t, t.TempDir()), testSecret, nil)
	id := saveRun(t, x, "old-token-first")
	if rec := fetch(t, y, paths.RunPath(id), nil); rec.Code != http.StatusNotFound {
		t.Fatalf("GET /r/%s before it is saved: %d, want 404", id, rec.Code)
	}
	if again := saveRun(t, y, "old-token-first"); again != id {
		t.Fatalf("one scenario, one secret: ids %s and %s", id, again)
	}
	if rec := fetch(t, y, paths.RunPath(id), nil); rec.Code != http.StatusOK {
		t.Errorf("GET /r/%s once saved: %d, want 200 (was the 404 kept?)", id, rec.Code)
	}
}

// TestDynamicGzip: answers made per request are gzipped when the client
// takes it, and only then.
func TestDynamicGzip(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	plain := fetch(t, s, "/lab?from=paused-worker", nil)
	gz := fetch(t, s, "/lab?from=paused-worker", map[string]string{"Accept-Encoding": "gzip"})
	if plain.Header().Get("Content-Encoding") != "" {
		t.Errorf("GET /lab without Accept-Encoding: Content-Encoding %q", plain.Header().Get("Content-Encoding"))
	}
	if gz.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("GET /lab with Accept-Encoding gzip: Content-Encoding %q", gz.Header().Get("Content-Encoding"))
	}
	if got := gunzip(t, "/lab", gz.Body.Bytes()); len(got) != plain.Body.Len() || gz.Body.Len()*2 > plain.Body.Len() {
		t.Errorf("GET /lab: %d bytes gzipped to %d, decoding to %d", plain.Body.Len(), gz.Body.Len(), len(got))
	}
}

// TestAPIReplayRepeated: the same body twice gets the same bytes (from
// memory the second time), gzipped when asked, and a body that differs by
// a byte is replayed afresh; an invalid body is never kept.
func TestAPIReplayRepeated(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	src := builtinSource(t, "paused-worker")
	first := postJSON(t, s, "/api/replay", src)
	second := postJSON(t, s, "/api/replay", src)
	checkResponse(t, "POST /api/replay", second, http.StatusOK, jsonType)
	if first.Code != http.StatusOK || !bytes.Equal(first.Body.Bytes(), second.Body.Bytes()) {
		t.Fatalf("POST /api/replay twice: %d, then other bytes", first.Code)
	}
	other := postJSON(t, s, "/api/replay", strings.Replace(src, `"value": "new-result"`, `"value": "new-result-2"`, 1))
	if !strings.Contains(other.Body.String(), "new-result-2") {
		t.Errorf("POST /api/replay of another scenario answered the first one's trace")
	}
	req := httptest.NewRequest(http.MethodPost, "/api/replay", strings.NewReader(src))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept-Encoding", "gzip")
	gz := httptest.NewRecorder()
	s.ServeHTTP(gz, req)
	if gz.Header().Get("Content-Encoding") != "gzip" || !bytes.Equal(gunzip(t, "POST /api/replay", gz.Body.Bytes()), first.Body.Bytes()) {
		t.Errorf("POST /api/replay with Accept-Encoding gzip: not the same trace gzipped once")
	}
	if got, want := gz.Header().Get("Content-Length"), strconv.Itoa(gz.Body.Len()); got != want {
		t.Errorf("POST /api/replay gzipped: Content-Length %q, want %s", got, want)
	}
	// A POST naming the answer's ETag still gets the answer: 304 is for GET and HEAD.
	req = httptest.NewRequest(http.MethodPost, "/api/replay", strings.NewReader(src))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("If-None-Match", second.Header().Get("ETag"))
	cond := httptest.NewRecorder()
	s.ServeHTTP(cond, req)
	if second.Header().Get("ETag") == "" || cond.Code != http.StatusOK || !bytes.Equal(cond.Body.Bytes(), first.Body.Bytes()) {
		t.Errorf("POST /api/replay with If-None-Match %q: %d and %d bytes, want 200 and the trace", second.Header().Get("ETag"), cond.Code, cond.Body.Len())
	}
	bad := `{"version":1,"title":"t","events":[{"actor":"A","kind":"nope"}]}`
	for range 2 {
		if rec := postJSON(t, s, "/api/replay", bad); rec.Code != http.StatusUnprocessableEntity {
			t.Errorf("POST /api/replay of an invalid scenario: %d, want 422", rec.Code)
		}
	}
}

// TestAPIReplayConcurrent: clients posting the same new scenario at once,
// some taking gzip, over real connections, all get the one trace, with its
// length (not chunked) and every security header: the answer kept, its
// gzipped form made on first demand and its shared header values are
// read by many requests at a time.
func TestAPIReplayConcurrent(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	ts := httptest.NewServer(s)
	defer ts.Close()
	src := strings.Replace(builtinSource(t, "paused-worker"), `"title": "`, `"title": "concurrent `, 1)
	want := postJSON(t, s, "/api/replay", strings.Replace(src, "concurrent", "warm-up", 1)).Body.Bytes()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := range 8 {
		wg.Go(func() {
			for j := range 10 {
				req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/replay", strings.NewReader(src))
				req.Header.Set("Content-Type", "application/json")
				gzipped := (i+j)%2 == 0
				if gzipped {
					req.Header.Set("Accept-Encoding", "gzip")
				}
				res, err := client.Do(req)
				if err != nil {
					errs <- err.Error()
					return
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.ContentLength != int64(len(body)) || len(res.TransferEncoding) > 0 {
					errs <- fmt.Sprintf("Content-Length %d, Transfer-Encoding %q for %d bytes", res.ContentLength, res.TransferEncoding, len(body))
				}
				if res.Header.Get("X-Frame-Options") != "DENY" || res.Header.Get("Content-Security-Policy") == "" {
					errs <- fmt.Sprintf("security headers missing: %v", res.Header)
				}
				if gzipped != (res.Header.Get("Content-Encoding") == "gzip") {
					errs <- fmt.Sprintf("asked gzip %v, Content-Encoding %q", gzipped, res.Header.Get("Content-Encoding"))
					continue
				}
				if gzipped {
					zr, err := gzip.NewReader(bytes.NewReader(body))
					if err != nil {
						errs <- err.Error()
						continue
					}
					body, _ = io.ReadAll(zr)
				}
				if !bytes.Equal(bytes.Replace(body, []byte("concurrent"), []byte("warm-up"), 1), want) {
					errs <- fmt.Sprintf("another trace (%d bytes, want %d)", len(body), len(want))
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error("POST /api/replay: " + e)
	}
}
