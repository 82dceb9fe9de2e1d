package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"fencelab/server"
)

// With a base URL, the links the server hands out are built on it, not on
// the Host header of the request.
func TestBaseURL(t *testing.T) {
	t.Parallel()
	db := openDB(t, t.TempDir())
	s, err := server.New(server.Config{Store: db, Library: testLibrary(t), Secret: testSecret, BaseURL: "https://lab.example/fence/"})
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	rec := postJSON(t, s, "/api/runs", builtinSource(t, "paused-worker"))
	var got struct{ URL string }
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != http.StatusCreated {
		t.Fatalf("POST /api/runs = %d %s", rec.Code, rec.Body)
	}
	if !strings.HasPrefix(got.URL, "https://lab.example/fence/r/") || rec.Header().Get("Location") != got.URL {
		t.Errorf("POST /api/runs url = %q, Location %q; want both on https://lab.example/fence/r/", got.URL, rec.Header().Get("Location"))
	}
	for _, bad := range []string{"lab.example", "ftp://lab.example", "https://lab.example/?q=1", "https://"} {
		if _, err := server.New(server.Config{Store: db, Library: testLibrary(t), Secret: testSecret, BaseURL: bad}); err == nil {
			t.Errorf("server.New(BaseURL %q) = nil error, want one", bad)
		}
	}
}

// TestBaseURLOrigin: behind a proxy that passes on another Host, a post
// from the base URL's origin is the lab's own; any other origin is refused.
func TestBaseURLOrigin(t *testing.T) {
	t.Parallel()
	db := openDB(t, t.TempDir())
	s, err := server.New(server.Config{Store: db, Library: testLibrary(t), Secret: testSecret, BaseURL: "https://lab.example/fence/"})
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	for origin, want := range map[string]int{"https://lab.example": http.StatusCreated, "https://evil.example": http.StatusForbidden,
		"http://lab.example": http.StatusForbidden} {
		req := httptest.NewRequest(http.MethodPost, "/api/runs", strings.NewReader(builtinSource(t, "paused-worker")))
		req.Host = "127.0.0.1:8080"
		req.Header.Set("Origin", origin)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("POST /api/runs with Origin %s, Host %s: status %d, want %d", origin, req.Host, rec.Code, want)
		}
		if want == http.StatusForbidden && !strings.Contains(rec.Body.String(), "only pages of this lab may post here") {
			t.Errorf("POST /api/runs with Origin %s: body %s, want the cross-site sentence", origin, rec.Body)
		}
	}
}
