package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fencelab/server"
	"fencelab/server/store"
	"fencelab/server/store/sqlite"
	"fencelab/views/paths"
)

// brokenBody yields part of a body, then fails as a cut connection does.
type brokenBody struct{ r io.Reader }

func (b *brokenBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		return n, io.ErrUnexpectedEOF
	}
	return n, err
}

// TestUnreadableBodyIs400 checks that a body that cannot be read whole is
// the client's fault on the API as on the forms: 400, not a logged 500.
func TestUnreadableBodyIs400(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	s := newServer(t, openDB(t, t.TempDir()), testSecret, &log)
	src := builtinSource(t, "paused-worker")
	tests := []struct{ target, contentType, body, wantType string }{
		{"/api/replay", "application/json", src[:40], jsonType},
		{"/api/runs", "application/json", src[:40], jsonType},
		{"/api/explore", "application/json", src[:40], jsonType},
		{"/replay", "application/x-www-form-urlencoded", "scenario=" + url.QueryEscape(src[:40]), htmlType},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			rec := do(t, s, http.MethodPost, tt.target, tt.contentType, &brokenBody{strings.NewReader(tt.body)})
			checkResponse(t, "POST "+tt.target+" with a body cut short", rec, http.StatusBadRequest, tt.wantType)
		})
	}
	if strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("bodies cut short were logged as errors:\n%s", log.String())
	}
}

// TestOptionsIs405 checks that OPTIONS gets what the README promises for
// any method a route does not take, and that Allow does not offer it.
func TestOptionsIs405(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	tests := []struct{ target, allow string }{
		{"/", "GET, HEAD"},
		{"/api/runs", "POST"},
		{"/api/replay", "POST"},
		{"/r/AAAAAAAAAAAAAAAA", "GET, HEAD"},
	}
	for _, tt := range tests {
		rec := do(t, s, http.MethodOptions, tt.target, "", nil)
		if rec.Code != http.StatusMethodNotAllowed {
			t.Errorf("OPTIONS %s: status = %d, want 405", tt.target, rec.Code)
		}
		if got := rec.Header().Get("Allow"); got != tt.allow {
			t.Errorf("OPTIONS %s: Allow = %q, want %q", tt.target, got, tt.allow)
		}
	}
	if rec := do(t, s, http.MethodDelete, "/api/runs", "", nil); rec.Header().Get("Allow") != "POST" {
		t.Errorf("DELETE /api/runs: Allow = %q, want %q", rec.Header().Get("Allow"), "POST")
	}
}

// TestBaseURLNotHost checks that links are built on the configured base URL, not
// on the Host header a client chose.
func TestBaseURLNotHost(t *testing.T) {
	t.Parallel()
	db := openDB(t, t.TempDir())
	s, err := server.New(server.Config{Store: db, Library: testLibrary(t), Secret: testSecret,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), BaseURL: "https://lab.example/fencelab/"})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/api/runs", strings.NewReader(builtinSource(t, "paused-worker")))
	req.Host = "evil.example"
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	var saved struct{ ID, URL string }
	if err := json.Unmarshal(rec.Body.Bytes(), &saved); err != nil || rec.Code != http.StatusCreated {
		t.Fatalf("POST /api/runs: %d %s", rec.Code, rec.Body)
	}
	want := "https://lab.example/fencelab/r/" + saved.ID
	if saved.URL != want || rec.Header().Get("Location") != want {
		t.Errorf("POST /api/runs with Host evil.example: url %q, Location %q; want both %q",
			saved.URL, rec.Header().Get("Location"), want)
	}
	for _, target := range []string{paths.RunMarkdownPath(saved.ID), paths.RunPath(saved.ID)} {
		req := httptest.NewRequest(http.MethodGet, target, nil)
		req.Host = "evil.example"
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if body := rec.Body.String(); strings.Contains(body, "evil.example") || !strings.Contains(body, want) {
			t.Errorf("GET %s with Host evil.example: has the Host %v, has %q %v; want only the base URL",
				target, strings.Contains(body, "evil.example"), want, strings.Contains(body, want))
		}
	}
	for _, bad := range []string{"lab.example", "ftp://lab.example", "https://lab.example/?x=1", "https://"} {
		if _, err := server.New(server.Config{Store: db, Library: testLibrary(t), Secret: testSecret, BaseURL: bad}); err == nil {
			t.Errorf("server.New with BaseURL %q: error = nil, want one", bad)
		}
	}
}

// TestCrossSitePostsRefused checks that a state-changing request a browser
// marks as coming from another site is refused, while scripts that send
// neither Sec-Fetch-Site nor Origin, and pages of the lab itself, go on.
func TestCrossSitePostsRefused(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	src := builtinSource(t, "paused-worker")
	tests := []struct {
		name    string
		headers map[string]string
		want    int
	}{
		{"curl", nil, http.StatusCreated},
		{"same origin", map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "http://example.com"}, http.StatusCreated},
		{"typed in", map[string]string{"Sec-Fetch-Site": "none"}, http.StatusCreated},
		{"own Origin only", map[string]string{"Origin": "http://example.com"}, http.StatusCreated},
		{"cross-site", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, http.StatusForbidden},
		{"same-site", map[string]string{"Sec-Fetch-Site": "same-site", "Origin": "http://sub.example.com"}, http.StatusForbidden},
		{"other Origin only", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"null Origin", map[string]string{"Origin": "null"}, http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, target := range []struct{ path, ctype, body string }{
				{"/api/runs", "text/plain", src},
				{"/runs", "application/x-www-form-urlencoded", "scenario=" + url.QueryEscape(src)},
			} {
				req := httptest.NewRequest(http.MethodPost, target.path, strings.NewReader(target.body))
				req.Header.Set("Content-Type", target.ctype)
				for k, v := range tt.headers {
					req.Header.Set(k, v)
				}
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, req)
				want := tt.want
				if want == http.StatusCreated && target.path == "/runs" {
					want = http.StatusSeeOther
				}
				if rec.Code != want {
					t.Errorf("POST %s (%s): status = %d, want %d", target.path, tt.name, rec.Code, want)
				}
			}
		})
	}
}

// fullStore fails saves as a full disk does; reads go to the real store.
type fullStore struct{ store.Runs }

func (fullStore) SaveRun(context.Context, store.Run) (store.Run, error) {
	return store.Run{}, fmt.Errorf("save: %w: %w", store.ErrFull, errors.New("database or disk is full"))
}

func TestDiskFullIs507(t *testing.T) {
	t.Parallel()
	db := openDB(t, t.TempDir())
	saved, err := db.SaveRun(t.Context(), sqlite.Run{ID: "AAAAAAAAAAAAAAAA", Title: "x",
		Scenario: []byte(builtinSource(t, "paused-worker")), Trace: []byte(`{}`), EngineVersion: "old"})
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, fullStore{db}, testSecret, nil)
	rec := postJSON(t, s, "/api/runs", builtinSource(t, "paused-worker"))
	checkResponse(t, "POST /api/runs on a full disk", rec, http.StatusInsufficientStorage, jsonType)
	if !strings.Contains(rec.Body.String(), "cannot store runs now") {
		t.Errorf("POST /api/runs on a full disk: body %s, want it to say the server cannot store runs now", rec.Body)
	}
	form := postForm(t, s, "/runs", url.Values{"scenario": {builtinSource(t, "paused-worker")}})
	checkResponse(t, "POST /runs on a full disk", form, http.StatusInsufficientStorage, htmlType)
	if rec := get(t, s, paths.APIRunPath(saved.ID)); rec.Code != http.StatusOK {
		t.Errorf("GET /api/runs/%s on a full disk: status %d, want 200", saved.ID, rec.Code)
	}
}

// TestDatabaseReplacedIs503 deletes the database file under a running
// server: saves are refused with 503 and a log line, not acknowledged.
func TestDatabaseReplacedIs503(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := openDB(t, dir)
	var log bytes.Buffer
	s := newServer(t, db, testSecret, &log)
	if err := os.Remove(filepath.Join(dir, "fencelab.db")); err != nil {
		t.Fatal(err)
	}
	rec := postJSON(t, s, "/api/runs", builtinSource(t, "paused-worker"))
	checkResponse(t, "POST /api/runs after the file was deleted", rec, http.StatusServiceUnavailable, jsonType)
	if !strings.Contains(log.String(), "deleted or replaced") {
		t.Errorf("log after a save into a deleted file does not say why:\n%s", log.String())
	}
}

// TestSaveOfAGoneClientIsNoError checks that a save abandoned by its client
// is not logged as a server error.
func TestSaveOfAGoneClientIsNoError(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	s := newServer(t, openDB(t, t.TempDir()), testSecret, &log)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/api/runs", strings.NewReader(builtinSource(t, "paused-worker")))
	s.ServeHTTP(httptest.NewRecorder(), req)
	if strings.Contains(log.String(), "level=ERROR") || !strings.Contains(log.String(), "status=499") {
		t.Errorf("log of a save whose client went away, want status=499 and no ERROR:\n%s", log.String())
	}
}

// TestPagesCarryNoNUL posts a scenario with NUL bytes: the page that shows
// it back (and its errors) carries U+FFFD instead of raw NULs.
func TestPagesCarryNoNUL(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	for _, src := range []string{
		"{\"version\":1,\"title\":\"a\x00b\",\"events\":[]}", // refused by validation
		"{\"version\":1,\x00",                                // not JSON
	} {
		rec := postForm(t, s, "/replay", url.Values{"scenario": {src}})
		if rec.Code != http.StatusUnprocessableEntity && rec.Code != http.StatusBadRequest {
			t.Errorf("POST /replay of %q: status %d, want 422 or 400", src, rec.Code)
		}
		if bytes.IndexByte(rec.Body.Bytes(), 0) >= 0 {
			t.Errorf("POST /replay of %q: the page carries a raw NUL byte", src)
		}
	}
}

// TestAccessLogClipsLongURIs: the access log keeps at most 512 bytes of a
// request's path and query, and says how long it was. (Attack: 8
// connections asking for /healthz with a 30 KB query wrote 560 MiB of log
// in 10 s.)
func TestAccessLogClipsLongURIs(t *testing.T) {
	t.Parallel()
	var log lockedBuffer
	srv := newServer(t, openDB(t, t.TempDir()), testSecret, &log)
	long := "/healthz?x=" + strings.Repeat("%22", 10000)
	if rec := plainGet(srv, long); rec.Code != http.StatusOK {
		t.Fatalf("GET /healthz?x=… = %d", rec.Code)
	}
	line := log.String()
	if !strings.Contains(line, "msg=request") || len(line) > 1200 || !strings.Contains(line, fmt.Sprintf("path_bytes=%d", len(long))) {
		t.Errorf("the access log's line for a %d-byte URI is %d bytes, want at most about 700 naming path_bytes:\n%.900s", len(long), len(line), line)
	}
}
