package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"fencelab/server"
	"fencelab/server/store"
)

// TestHiddenRunIsGone: once a run is hidden, every address that shows it
// answers 410 with the reason, at once, pages already in the page cache
// included, and a live room on it; saving the same scenario again does not
// bring it back; shown again, it answers 200.
func TestHiddenRunIsGone(t *testing.T) {
	t.Parallel()
	db := openDB(t, t.TempDir())
	secret, err := db.Secret(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Store: db, Rooms: db, Library: testLibrary(t), Secret: secret,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	rec := postJSON(t, srv, "/api/runs", builtinSource(t, "paused-worker"))
	if rec.Code != http.StatusCreated {
		t.Fatalf("POST /api/runs = %d %s, want 201", rec.Code, rec.Body)
	}
	var saved struct{ ID string }
	if err := json.Unmarshal(rec.Body.Bytes(), &saved); err != nil {
		t.Fatal(err)
	}
	id := saved.ID
	reads := []string{"/r/" + id, "/r/" + id + ".md", "/r/" + id + ".json", "/r/" + id + ".svg", "/r/" + id + ".png",
		"/r/" + id + "/embed", "/r/" + id + "/present", "/api/runs/" + id,
		"/oembed?url=" + url.QueryEscape("http://example.com/r/"+id), "/lab?from=r/" + id}
	for _, target := range reads { // twice: the second answer comes from the page cache
		for range 2 {
			if rec := plainGet(srv, target); rec.Code != http.StatusOK {
				t.Fatalf("GET %s before hiding = %d, want 200", target, rec.Code)
			}
		}
	}
	room := postForm(t, srv, "/rooms", url.Values{"page": {"/r/" + id}})
	loc, err := url.Parse(room.Header().Get("Location"))
	if room.Code != http.StatusSeeOther || err != nil {
		t.Fatalf("POST /rooms for the run = %d (Location %q), want 303", room.Code, room.Header().Get("Location"))
	}
	r, err := db.Room(t.Context(), loc.Query().Get("room"))
	if err != nil {
		t.Fatal(err)
	}
	reads = append(reads, "/join/"+r.Code)
	if rec := plainGet(srv, "/join/"+r.Code); rec.Code != http.StatusOK {
		t.Fatalf("GET /join/%s before hiding = %d, want 200", r.Code, rec.Code)
	}
	const reason = "It named a real person."
	if err := db.Hide(t.Context(), id, reason, time.Now()); err != nil {
		t.Fatalf("Hide(%s) = %v", id, err)
	}
	for _, target := range reads {
		rec := plainGet(srv, target)
		if rec.Code != http.StatusGone || !strings.Contains(rec.Body.String(), "taken down") ||
			!strings.Contains(rec.Body.String(), "named a real person") {
			t.Errorf("GET %s of a hidden run = %d %.200s, want 410 with the reason", target, rec.Code, rec.Body)
		}
	}
	posts := []struct{ target, body string }{
		{"/api/runs", builtinSource(t, "paused-worker")},
	}
	for _, p := range posts {
		if rec := postJSON(t, srv, p.target, p.body); rec.Code != http.StatusGone {
			t.Errorf("POST %s of a hidden run's scenario = %d %.200s, want 410", p.target, rec.Code, rec.Body)
		}
	}
	if rec := postForm(t, srv, "/rooms", url.Values{"page": {"/r/" + id}}); rec.Code != http.StatusGone {
		t.Errorf("POST /rooms for a hidden run = %d, want 410", rec.Code)
	}
	if err := db.Unhide(t.Context(), id); err != nil {
		t.Fatalf("Unhide(%s) = %v", id, err)
	}
	for _, target := range reads {
		if rec := plainGet(srv, target); rec.Code != http.StatusOK {
			t.Errorf("GET %s once shown again = %d, want 200", target, rec.Code)
		}
	}
}

// plainGet GETs target without the checks of get: an embed page may be framed.
func plainGet(h http.Handler, target string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	return rec
}

// TestHiddenRunIsGoneUnderEverySpelling: the takedown holds however a
// client spells the run's address: its id's characters percent-encoded,
// the dot before an export's suffix encoded, each export and the embed,
// once every spelling's page sits in the page cache. What is not a run id
// once decoded answers 404. Before the takedown every spelling is the
// same page, from one entry of the cache.
func TestHiddenRunIsGoneUnderEverySpelling(t *testing.T) {
	t.Parallel()
	db := openDB(t, t.TempDir())
	secret, err := db.Secret(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Store: db, Library: testLibrary(t), Secret: secret,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	rec := postJSON(t, srv, "/api/runs", builtinSource(t, "paused-worker"))
	var saved struct{ ID string }
	if err := json.Unmarshal(rec.Body.Bytes(), &saved); err != nil || rec.Code != http.StatusCreated {
		t.Fatalf("POST /api/runs = %d %s", rec.Code, rec.Body)
	}
	id := saved.ID
	first := fmt.Sprintf("%%%02X", id[0]) + id[1:] // "/r/%35…"
	all := ""
	for i := range len(id) {
		all += fmt.Sprintf("%%%02x", id[i])
	}
	spellings := map[string]string{ // spelling: the canonical address it is
		"/r/" + first:                      "/r/" + id,
		"/r/" + all:                        "/r/" + id,
		"/r/" + id + "%2Ejson":             "/r/" + id + ".json",
		"/r/" + first + ".json":            "/r/" + id + ".json",
		"/r/" + first + "%2emd":            "/r/" + id + ".md",
		"/r/" + first + ".svg":             "/r/" + id + ".svg",
		"/r/" + first + ".png":             "/r/" + id + ".png",
		"/r/" + first + ".png?size=full":   "/r/" + id + ".png?size=full",
		"/r/" + first + "/embed":           "/r/" + id + "/embed",
		"/r/" + first + "/present":         "/r/" + id + "/present",
		"/api/runs/" + first:               "/api/runs/" + id,
		"/api/runs/" + all:                 "/api/runs/" + id,
		"/r/" + first + "?p=junk&d=junk&x": "/r/" + id + "?p=junk",
	}
	for spelled, canonical := range spellings {
		want := plainGet(srv, canonical)
		got := plainGet(srv, spelled)
		if want.Code != http.StatusOK || got.Code != http.StatusOK {
			t.Fatalf("before hiding: GET %s = %d, GET %s = %d, want 200 and 200", canonical, want.Code, spelled, got.Code)
		}
		if e := want.Header().Get("ETag"); e != "" && got.Header().Get("ETag") != e {
			t.Errorf("GET %s has ETag %q, GET %s %q: want one cached page", spelled, got.Header().Get("ETag"), canonical, e)
		}
	}
	if err := db.Hide(t.Context(), id, "It named a real person.", time.Now()); err != nil {
		t.Fatal(err)
	}
	for spelled, canonical := range spellings {
		for _, target := range []string{spelled, canonical} {
			for _, method := range []string{http.MethodGet, http.MethodHead} {
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
				if rec.Code != http.StatusGone {
					t.Errorf("%s %s of a hidden run = %d, want 410", method, target, rec.Code)
				}
			}
		}
	}
	for _, target := range []string{"/compare?a=r/" + id + "&b=paused-worker", "/compare.md?a=paused-worker&b=r/" + first} {
		if rec := plainGet(srv, target); rec.Code != http.StatusGone || !strings.Contains(rec.Body.String(), "was taken down") {
			t.Errorf("GET %s of a hidden run = %d %.200s, want 410 saying it was taken down", target, rec.Code, rec.Body)
		}
	}
	twice := fmt.Sprintf("%%25%02X", id[0]) + id[1:] // "%2535…": the id "%35…", decoded once
	for _, target := range []string{"/r/%25" + id[1:], "/r/" + id[:15] + "%2E", "/r/" + id + "%2Fembed",
		"/r/" + id + "%00", "/api/runs/" + id + "%2Ejson", "/r/" + first[:3], "/r/" + twice, "/api/runs/" + twice,
		"/r/" + twice + ".json", "/r/" + twice + "/embed"} {
		if rec := plainGet(srv, target); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404: it names no run", target, rec.Code)
		}
	}
}

// TestIDIsDecodedOnce: an address whose id is percent-encoded twice names
// the id with the "%" in it, which is none, and answers 404 whether the
// run is hidden or not. (Attack F1, again: /r/%2530… was the page of
// /r/0…, since Echo had decoded the segment once already.)
func TestIDIsDecodedOnce(t *testing.T) {
	t.Parallel()
	srv := limitedServer(t, server.Limits{})
	rec := saveFrom(srv, "203.0.113.9", builtinSource(t, "paused-worker"))
	var saved struct{ ID string }
	if err := json.Unmarshal(rec.Body.Bytes(), &saved); err != nil || rec.Code != http.StatusCreated {
		t.Fatalf("POST /api/runs = %d %s", rec.Code, rec.Body)
	}
	twice := fmt.Sprintf("%%25%02X", saved.ID[0]) + saved.ID[1:]
	for _, target := range []string{"/r/" + twice, "/api/runs/" + twice, "/r/" + twice + ".md", "/r/" + twice + "/present"} {
		if rec := plainGet(srv, target); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s of a shown run = %d, want 404: it names the id %q", target, rec.Code, "%"+twice[3:])
		}
	}
}

// countingTakedowns counts the takedown questions a request asks.
type countingTakedowns struct {
	store.Takedowns
	mu    sync.Mutex
	asked int
}

func (c *countingTakedowns) Hidden(ctx context.Context, id string) (string, bool, error) {
	c.mu.Lock()
	c.asked++
	c.mu.Unlock()
	return c.Takedowns.Hidden(ctx, id)
}

// TestTakedownAskedOnce: each route of one run asks the store once
// whether the run was taken down, not once in the guard and again where
// the run is loaded.
func TestTakedownAskedOnce(t *testing.T) {
	t.Parallel()
	db := openDB(t, t.TempDir())
	takedowns := &countingTakedowns{Takedowns: db}
	srv, err := server.New(server.Config{Store: db, Takedowns: takedowns, Library: testLibrary(t), Secret: testSecret,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	id := saveRun(t, srv, "paused-worker")
	for _, target := range []string{"/r/" + id, "/r/" + id + ".md", "/r/" + id + ".json", "/r/" + id + ".svg",
		"/r/" + id + ".png", "/r/" + id + "/embed", "/r/" + id + "/present", "/api/runs/" + id} {
		takedowns.mu.Lock()
		takedowns.asked = 0
		takedowns.mu.Unlock()
		if rec := plainGet(srv, target+"?p=strict"); rec.Code != http.StatusOK {
			t.Fatalf("GET %s = %d, want 200", target, rec.Code)
		}
		if takedowns.asked != 1 {
			t.Errorf("GET %s asked %d times whether the run was taken down, want once", target, takedowns.asked)
		}
	}
}
