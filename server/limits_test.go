package server_test

import (
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
)

// limitedServer is a server on a fresh SQLite file with the given limits,
// answering refusals at once unless they say otherwise.
func limitedServer(t testing.TB, limits server.Limits) *server.Server {
	t.Helper()
	if limits.RefusalDelay == 0 {
		limits.RefusalDelay = -1
	}
	db := openDB(t, t.TempDir())
	secret, err := db.Secret(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Store: db, Rooms: db, Library: testLibrary(t), Secret: secret,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Limits: limits})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// titled is a built-in scenario under another title: a distinct run.
func titled(t testing.TB, name, title string) string {
	t.Helper()
	var sc map[string]any
	if err := json.Unmarshal([]byte(builtinSource(t, name)), &sc); err != nil {
		t.Fatal(err)
	}
	sc["title"] = title
	b, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// saveFrom posts body to /api/runs from the address addr.
func saveFrom(h http.Handler, addr, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/api/runs", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = addr + ":40000"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestClassroomBehindOneAddress: with the default limits, 300 students
// behind one NAT address each save their own run within a minute, 30 at
// a time, and none is refused.
func TestClassroomBehindOneAddress(t *testing.T) {
	if testing.Short() {
		t.Skip("300 saves take a second or more: not under -short")
	}
	t.Parallel()
	srv := limitedServer(t, server.Limits{})
	const students, together = 300, 30
	start := time.Now()
	codes := make([]int, students)
	var wg sync.WaitGroup
	sem := make(chan struct{}, together)
	for i := range students {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			codes[i] = saveFrom(srv, "203.0.113.7", titled(t, "paused-worker", fmt.Sprint("Student ", i))).Code
		})
	}
	wg.Wait()
	if took := time.Since(start); took > time.Minute {
		t.Errorf("300 saves took %s, want them within a minute", took)
	}
	for i, code := range codes {
		if code != http.StatusCreated {
			t.Errorf("student %d: POST /api/runs = %d, want 201", i, code)
		}
	}
}

// TestSaveBudgets: past a client's budget of saves or bytes a new run is
// refused with 429, Retry-After and a sentence naming the budget; the
// same run saved again costs nothing (as many distinct runs pass after
// it as without it); another client has its own budget.
func TestSaveBudgets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		limits server.Limits
		words  string
	}{
		{"saves", server.Limits{Saves: 3, SavesPerHour: 1}, "saved too many runs"},
		{"bytes", server.Limits{SaveBytes: 100 << 10, SaveBytesPerHour: 1 << 10}, "saved too many bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plain, _ := untilRefused(t, limitedServer(t, tt.limits), 0)
			srv := limitedServer(t, tt.limits)
			saved, rec := untilRefused(t, srv, 5)
			if rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), tt.words) ||
				rec.Header().Get("Retry-After") == "" {
				t.Fatalf("save #%d past the budget = %d %s (Retry-After %q), want 429 saying %q with a Retry-After",
					saved, rec.Code, rec.Body, rec.Header().Get("Retry-After"), tt.words)
			}
			if saved == 0 || saved != plain {
				t.Errorf("%d distinct runs passed with run 0 saved 5 times more, %d without; want the same, at least 1", saved, plain)
			}
			if rec := saveFrom(srv, "198.51.100.2", titled(t, "paused-worker", "Another client")); rec.Code != http.StatusCreated {
				t.Errorf("another client's save = %d %s, want 201", rec.Code, rec.Body)
			}
		})
	}
}

// untilRefused saves distinct runs from one client until one is refused,
// saving the first again `again` times, and returns how many distinct
// runs passed and the refusal.
func untilRefused(t *testing.T, srv http.Handler, again int) (int, *httptest.ResponseRecorder) {
	t.Helper()
	saved := 0
	for i := range 50 {
		rec := saveFrom(srv, "198.51.100.1", titled(t, "paused-worker", fmt.Sprint("Run ", i)))
		if rec.Code != http.StatusCreated {
			return saved, rec
		}
		saved++
		for range again * btoi(i == 0) {
			if rec := saveFrom(srv, "198.51.100.1", titled(t, "paused-worker", "Run 0")); rec.Code != http.StatusCreated {
				t.Fatalf("saving run 0 again = %d %s, want 201", rec.Code, rec.Body)
			}
		}
	}
	t.Fatal("50 distinct runs passed: no budget ran out")
	return 0, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestRoomBudget: past a client's budget of live rooms, 429.
func TestRoomBudget(t *testing.T) {
	t.Parallel()
	srv := limitedServer(t, server.Limits{Rooms: 2, RoomsPerHour: 1})
	form := url.Values{"page": {"/scenarios/paused-worker"}}
	for i := range 3 {
		rec := postForm(t, srv, "/rooms", form)
		want := http.StatusSeeOther
		if i == 2 {
			want = http.StatusTooManyRequests
		}
		if rec.Code != want {
			t.Errorf("room #%d: POST /rooms = %d %.200s, want %d", i, rec.Code, rec.Body, want)
		}
		if i == 2 && !strings.Contains(rec.Body.String(), "too many live rooms") {
			t.Errorf("room #%d: POST /rooms says %.300s, want it to name the rooms budget", i, rec.Body)
		}
	}
}

// TestMaxStoreSize: once the store has reached its size limit a new run
// is refused with 507 and a sentence, and saved runs still open.
func TestMaxStoreSize(t *testing.T) {
	t.Parallel()
	srv := limitedServer(t, server.Limits{MaxStoreSize: 200 << 10})
	var rec *httptest.ResponseRecorder
	var first string
	for i := range 100 {
		rec = saveFrom(srv, "198.51.100.1", titled(t, "paused-worker", fmt.Sprint("Run ", i)))
		if rec.Code != http.StatusCreated {
			break
		}
		if first == "" {
			first = rec.Header().Get("Location")
		}
	}
	if rec.Code != http.StatusInsufficientStorage || !strings.Contains(rec.Body.String(), "size limit of 200 KiB") {
		t.Fatalf("save past --max-store-size = %d %s, want 507 naming the limit", rec.Code, rec.Body)
	}
	if first == "" {
		t.Fatal("no save passed before the store was full")
	}
	path := strings.TrimPrefix(first, "http://example.com")
	if rec := plainGet(srv, path); rec.Code != http.StatusOK {
		t.Errorf("GET %s of a full store = %d, want 200", path, rec.Code)
	}
	if rec := plainGet(srv, "/scenarios/paused-worker"); rec.Code != http.StatusOK {
		t.Errorf("GET /scenarios/paused-worker of a full store = %d, want 200", rec.Code)
	}
}

// TestEverySaveHasABudget: the routes that only save on the way to
// another page (the editor's Explore, the explorer's counterexample's
// Edit) are refused past the client's budget as the others are, before
// the body is parsed, and the explorer's Save once it is. (They took no
// budget check and no turn: a refusal was answered only after the form
// was parsed and compiled.)
func TestEverySaveHasABudget(t *testing.T) {
	t.Parallel()
	srv := limitedServer(t, server.Limits{Saves: 1, SavesPerHour: 1})
	form := editorForm(t, editorPage(t, srv, http.MethodGet, "/lab?from=paused-worker", nil, http.StatusOK))
	if rec := saveFrom(srv, "192.0.2.1", titled(t, "paused-worker", "The one save")); rec.Code != http.StatusCreated {
		t.Fatalf("the budget's one save = %d %s", rec.Code, rec.Body)
	}
	// Bodies that do not parse: refused for the budget, they are never read.
	form.Set("ev.1.kind", "no such kind")
	scenario := url.Values{"scenario": {"{"}, "save": {"1"}}
	for _, tt := range []struct {
		target string
		form   url.Values
	}{
		{"/lab/explore", form},
		{"/explore/edit", scenario},
		{"/lab/save", form},
	} {
		rec := postForm(t, srv, tt.target, tt.form)
		if rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), "saved too many runs") {
			t.Errorf("POST %s past the budget = %d %.200s, want 429 naming the budget", tt.target, rec.Code, rec.Body)
		}
	}
	// POST /explore explores unless the form says save: its form is read first.
	rec := postForm(t, srv, "/explore", url.Values{"scenario": {titled(t, "paused-worker", "Another")}, "save": {"1"}})
	if rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), "saved too many runs") {
		t.Errorf("POST /explore save=1 past the budget = %d %.200s, want 429 naming the budget", rec.Code, rec.Body)
	}
}
