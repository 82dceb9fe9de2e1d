package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"fencelab/lab"
	"fencelab/server"
	"fencelab/views/htmltest"
)

// TestExploreBound says the exploration stopped at the bound, never that
// it is complete.
func TestExploreBound(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	rec := get(t, s, "/explore?from=paused-worker&budget=5")
	checkResponse(t, "GET /explore budget=5", rec, http.StatusOK, htmlType)
	body := htmltest.Text(parsePage(t, rec.Body.Bytes()).root)
	for _, want := range []string{"stopped at the bound after 5 distinct states", "there is nothing to count yet", "The budget of 5 distinct states was reached", "Explore further"} {
		if !strings.Contains(body, want) {
			t.Errorf("GET /explore budget=5: page lacks %q", want)
		}
	}
	for _, bad := range []string{"safe in all", "orderings explored:"} {
		if strings.Contains(body, bad) {
			t.Errorf("GET /explore budget=5: page says %q", bad)
		}
	}

	rec = postJSON(t, s, "/api/explore?budget=5", builtinSource(t, "paused-worker"))
	checkResponse(t, "POST /api/explore?budget=5", rec, http.StatusOK, jsonType)
	var x struct {
		Complete bool   `json:"complete"`
		Stopped  string `json:"stopped"`
		States   int    `json:"states"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &x); err != nil || x.Complete || x.Stopped != "budget" || x.States != 5 {
		t.Errorf("POST /api/explore?budget=5 = %+v (%v), want incomplete, stopped at the budget, 5 states", x, err)
	}
}

// TestExploreDeadline gives the engine the deadline asked for, and says
// so when it passed.
func TestExploreDeadline(t *testing.T) {
	t.Parallel()
	var left time.Duration
	s := newExploreServer(t, server.ExploreConfig{Run: func(ctx context.Context, sc *lab.Scenario, opt lab.ExploreOptions) *lab.Exploration {
		d, _ := ctx.Deadline()
		left = time.Until(d)
		x := lab.Explore(context.Background(), sc, lab.ExploreOptions{Budget: 5})
		x.Stopped = lab.StopDeadline
		return x
	}})
	rec := get(t, s, "/explore?from=paused-worker&deadline=3s")
	checkResponse(t, "GET /explore deadline=3s", rec, http.StatusOK, htmlType)
	if left <= 0 || left > 3*time.Second {
		t.Errorf("GET /explore deadline=3s: the engine's context has %v left, want at most 3s", left)
	}
	if !strings.Contains(rec.Body.String(), "The deadline of 3\u00a0s passed.") {
		t.Errorf("GET /explore deadline=3s: page does not say the deadline passed")
	}
}

// TestAPIExplore answers the engine's exploration, byte for byte as
// encoding/json writes it.
func TestAPIExplore(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	rec := postJSON(t, s, "/api/explore", builtinSource(t, "old-token-first"))
	checkResponse(t, "POST /api/explore", rec, http.StatusOK, jsonType)
	want, _ := json.Marshal(exploreOf(t, "old-token-first"))
	if got := bytes.TrimSuffix(rec.Body.Bytes(), []byte("\n")); !bytes.Equal(got, want) {
		t.Errorf("POST /api/explore body differs from json.Marshal(lab.Explore):\ngot  %s\nwant %s", got, want)
	}
	var x struct {
		Writes    string      `json:"writes"`
		Expiry    string      `json:"expiry"`
		Events    []lab.Event `json:"events"`
		Orderings *big.Int    `json:"orderings"`
		Complete  bool        `json:"complete"`
		Policies  []struct {
			Policy         string                 `json:"policy"`
			AnyViolating   *big.Int               `json:"any_violating"`
			Violating      map[string]*big.Int    `json:"violating"`
			ByClass        map[lab.Class]*big.Int `json:"by_class"`
			Worst          *lab.Class             `json:"worst"`
			Counterexample *lab.Counterexample    `json:"counterexample"`
		} `json:"policies"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &x); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if len(x.Events) != 9 || x.Orderings.Int64() != 420 || !x.Complete || len(x.Policies) != len(lab.Policies()) {
		t.Fatalf("POST /api/explore: events %d, orderings %s, complete %v, %d policies", len(x.Events), x.Orderings, x.Complete, len(x.Policies))
	}
	for i, pe := range x.Policies {
		if pe.Policy != string(lab.Policies()[i]) || len(pe.Violating) != len(lab.Invariants()) {
			t.Errorf("POST /api/explore: policies[%d] = %s with %d invariants", i, pe.Policy, len(pe.Violating))
		}
	}
	if x.Writes != "split" || x.Expiry != "free" || x.Events[5].Kind != lab.Send || x.Events[5].ID != "#6" || x.Events[6].Request != "#6" {
		t.Errorf("POST /api/explore: writes %q, expiry %q, events 6-7 %+v %+v; want split, free, send #6, deliver #6", x.Writes, x.Expiry, x.Events[5], x.Events[6])
	}
	for i, pe := range x.Policies {
		if len(pe.ByClass) != len(lab.Classes()) {
			t.Errorf("POST /api/explore: policies[%d].by_class = %v, want all four classes", i, pe.ByClass)
		}
	}
	fenced := x.Policies[2]
	if ce := fenced.Counterexample; fenced.Worst == nil || *fenced.Worst != lab.Deposed || fenced.ByClass[lab.Deposed].Int64() != 30 ||
		ce == nil || !slices.Equal(ce.Order, []int{1, 2, 3, 4, 5, 6, 7, 8, 9}) || ce.Step != 7 || ce.Invariant != lab.SupersededWrite || ce.Class != lab.Deposed {
		t.Errorf("POST /api/explore: fenced worst %v by class %v, counterexample %+v; want deposed in 30, superseded-write at step 7 of 1..9", fenced.Worst, fenced.ByClass, ce)
	}
	if auth := x.Policies[6]; auth.Worst != nil || auth.Counterexample != nil {
		t.Errorf("POST /api/explore: authoritative worst %v, want null", auth.Worst)
	}

	rec = postJSON(t, s, "/api/explore?from=old-token-first", "")
	checkResponse(t, "POST /api/explore?from=old-token-first", rec, http.StatusOK, jsonType)
	if got := bytes.TrimSuffix(rec.Body.Bytes(), []byte("\n")); !bytes.Equal(got, want) {
		t.Errorf("POST /api/explore?from=old-token-first differs from the body's exploration")
	}

	rec = postJSON(t, s, "/api/explore?from=old-token-first&writes=atomic&expiry=program", "")
	checkResponse(t, "POST /api/explore?writes=atomic&expiry=program", rec, http.StatusOK, jsonType)
	want, _ = json.Marshal(exploreWith(t, "old-token-first", model1))
	if got := bytes.TrimSuffix(rec.Body.Bytes(), []byte("\n")); !bytes.Equal(got, want) || !bytes.Contains(got, []byte(`"orderings":21,`)) {
		t.Errorf("POST /api/explore?writes=atomic&expiry=program = %.300s, want model 1's 21 orderings", got)
	}
}

// TestExploreBadInputs answers each bad input with its status and the
// error shape of the rest: JSON under /api, a page elsewhere.
func TestExploreBadInputs(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	paused := builtinSource(t, "paused-worker")
	unknownField := strings.Replace(paused, `"kind": "read"`, `"kind": "read", "colour": "red"`, 1)
	tests := []struct {
		name, method, target, body string
		status                     int
		contentType                string
		contains                   string
	}{
		{"malformed JSON", "POST", "/api/explore", `{"version": 1,`, 400, jsonType, "malformed JSON"},
		{"unknown field", "POST", "/api/explore", unknownField, 422, jsonType, `"field":"colour"`},
		{"70 KiB body", "POST", "/api/explore", string(bigBody(70 << 10)), 413, jsonType, "64 KiB"},
		{"budget 0", "POST", "/api/explore?budget=0", paused, 400, jsonType, "budget"},
		{"writes unknown", "POST", "/api/explore?writes=both", paused, 400, jsonType, "writes must be split"},
		{"expiry unknown", "POST", "/api/explore?expiry=never", paused, 400, jsonType, "expiry must be free"},
		{"expiry unknown on the page", "GET", "/explore?from=paused-worker&expiry=Free", "", 400, htmlType, "expiry must be free"},
		{"budget not a number", "POST", "/api/explore?budget=lots", paused, 400, jsonType, "budget"},
		{"budget over the cap", "POST", "/api/explore?budget=1000001", paused, 400, jsonType, "1000000"},
		{"deadline over the cap", "POST", "/api/explore?deadline=11s", paused, 400, jsonType, "at most 10s"},
		{"deadline negative", "POST", "/api/explore?deadline=-1s", paused, 400, jsonType, "deadline"},
		{"deadline without unit", "POST", "/api/explore?deadline=2", paused, 400, jsonType, "such as 2s"},
		{"unknown built-in (API)", "POST", "/api/explore?from=nope", "", 404, jsonType, "no built-in scenario"},
		{"unknown run (API)", "POST", "/api/explore?from=r/AAAAAAAAAAAAAAAA", "", 404, jsonType, "no saved run"},
		{"no GET on the API", "GET", "/api/explore", "", 405, jsonType, ""},
		{"unknown built-in", "GET", "/explore?from=nope", "", 404, htmlType, "no built-in scenario"},
		{"unknown run", "GET", "/explore?from=r/AAAAAAAAAAAAAAAA", "", 404, htmlType, "no saved run"},
		{"malformed run id", "GET", "/explore?from=r/%3Cscript%3E", "", 404, htmlType, "no saved run"},
		{"no from", "GET", "/explore", "", 400, htmlType, "Say which scenario"},
		{"bad budget on the page", "GET", "/explore?from=paused-worker&budget=-3", "", 400, htmlType, "budget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(t, s, tt.method, tt.target, "application/json", strings.NewReader(tt.body))
			call := tt.method + " " + tt.target
			checkResponse(t, call, rec, tt.status, tt.contentType)
			if !strings.Contains(rec.Body.String(), tt.contains) {
				t.Errorf("%s: body lacks %q:\n%.500s", call, tt.contains, rec.Body.String())
			}
			if tt.contentType == jsonType {
				var e struct {
					Error  string           `json:"error"`
					Errors []lab.FieldError `json:"errors"`
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" || e.Errors == nil {
					t.Errorf("%s: body is not {error, errors}: %v %s", call, err, rec.Body.String())
				}
			}
		})
	}
}

// blockingExplore holds every exploration until released, so that a test
// can fill the slots without timing.
type blockingExplore struct {
	entered chan struct{}
	release chan struct{}
}

func (b *blockingExplore) run(ctx context.Context, s *lab.Scenario, opt lab.ExploreOptions) *lab.Exploration {
	b.entered <- struct{}{}
	<-b.release
	return lab.Explore(ctx, s, opt)
}

// TestExploreBusy refuses an exploration while the limit is reached, with
// 503 and Retry-After, on the page and in the API; the slot frees after.
func TestExploreBusy(t *testing.T) {
	t.Parallel()
	b := &blockingExplore{entered: make(chan struct{}), release: make(chan struct{})}
	s := newExploreServer(t, server.ExploreConfig{Limit: 1, Run: b.run, Queue: -1})
	first := make(chan *httptest.ResponseRecorder)
	go func() { first <- get(t, s, "/explore?from=old-token-first") }()
	<-b.entered

	refused := []struct {
		method, target, body, contentType string
	}{
		{"GET", "/explore?from=paused-worker", "", htmlType},
		{"POST", "/api/explore", builtinSource(t, "paused-worker"), jsonType},
		{"POST", "/api/explore?stream=1", builtinSource(t, "paused-worker"), jsonType},
	}
	for _, r := range refused {
		// From another client: the first one's own second request is over its share (429).
		rec := doFrom(t, s, "198.51.100.7:4000", nil, r.method, r.target, strings.NewReader(r.body))
		call := r.method + " " + r.target + " while busy"
		checkResponse(t, call, rec, http.StatusServiceUnavailable, r.contentType)
		if got := rec.Header().Get("Retry-After"); got != "5" {
			t.Errorf("%s: Retry-After = %q, want 5", call, got)
		}
		if !strings.Contains(rec.Body.String(), "try again in a few seconds") {
			t.Errorf("%s: body does not say to try again:\n%.400s", call, rec.Body.String())
		}
	}

	close(b.release)
	checkResponse(t, "GET /explore (the one holding the slot)", <-first, http.StatusOK, htmlType)
	go func() { <-b.entered }()
	checkResponse(t, "GET /explore after the slot freed", get(t, s, "/explore?from=paused-worker"), http.StatusOK, htmlType)
}

// TestExploreCache serves a scenario explored before without exploring it
// again: complete results for any budget they fit in, budget-stopped ones
// for the same budget, deadline-stopped ones never.
func TestExploreCache(t *testing.T) {
	t.Parallel()
	var ce countingExplore
	s := newExploreServer(t, server.ExploreConfig{Run: ce.run})
	steps := []struct {
		method, target, body string
		calls                int
	}{
		{"GET", "/explore?from=old-token-first", "", 1},
		{"GET", "/explore?from=old-token-first", "", 1},
		{"POST", "/api/explore", builtinSource(t, "old-token-first"), 1},
		{"GET", "/explore?from=old-token-first&budget=" + strconv.Itoa(exploreOf(t, "old-token-first").States), "", 1},
		{"GET", "/explore?from=old-token-first&budget=5", "", 2},
		{"GET", "/explore?from=old-token-first&budget=5", "", 2},
		{"GET", "/explore?from=old-token-first&budget=6", "", 3},
		{"GET", "/explore?from=old-token-first", "", 3},
		{"POST", "/api/explore?stream=1", builtinSource(t, "old-token-first"), 3},
		{"GET", "/explore?from=old-token-first&writes=atomic", "", 4},
		{"GET", "/explore?from=old-token-first&writes=atomic&expiry=program", "", 5},
		{"GET", "/explore?from=old-token-first&expiry=free&writes=split", "", 5},
		{"GET", "/explore?from=paused-worker", "", 6},
	}
	for i, st := range steps {
		rec := do(t, s, st.method, st.target, "application/json", strings.NewReader(st.body))
		if rec.Code != http.StatusOK {
			t.Fatalf("step %d: %s %s: status %d", i+1, st.method, st.target, rec.Code)
		}
		if got := ce.count(); got != st.calls {
			t.Errorf("step %d: after %s %s the engine ran %d times, want %d", i+1, st.method, st.target, got, st.calls)
		}
	}
}

func TestExploreCacheSkipsDeadline(t *testing.T) {
	t.Parallel()
	var calls int
	s := newExploreServer(t, server.ExploreConfig{Run: func(ctx context.Context, sc *lab.Scenario, opt lab.ExploreOptions) *lab.Exploration {
		calls++
		x := lab.Explore(ctx, sc, lab.ExploreOptions{Budget: 5})
		x.Stopped = lab.StopDeadline
		return x
	}})
	for range 2 {
		get(t, s, "/explore?from=paused-worker")
	}
	if calls != 2 {
		t.Errorf("an exploration stopped by its deadline was served from the cache: %d runs for 2 requests", calls)
	}
}

func TestExploreCacheEvicts(t *testing.T) {
	t.Parallel()
	var ce countingExplore
	s := newExploreServer(t, server.ExploreConfig{Cache: 1, Run: ce.run})
	for _, name := range []string{"paused-worker", "old-token-first", "paused-worker"} {
		get(t, s, "/explore?from="+name)
	}
	if got := ce.count(); got != 3 {
		t.Errorf("with room for one exploration, three requests over two scenarios ran the engine %d times, want 3", got)
	}
}

// sseEvent is one server-sent event.
type sseEvent struct {
	name string
	data string
}

func readEvents(t *testing.T, body string) []sseEvent {
	t.Helper()
	var out []sseEvent
	for _, block := range strings.Split(strings.TrimSpace(body), "\n\n") {
		var ev sseEvent
		for _, line := range strings.Split(block, "\n") {
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				ev.name = v
			} else if v, ok := strings.CutPrefix(line, "data: "); ok {
				ev.data = v
			} else {
				t.Errorf("event stream: unexpected line %q", line)
			}
		}
		out = append(out, ev)
	}
	return out
}

// TestExploreStream sends progress, then the rendered result.
func TestExploreStream(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	rec := postJSON(t, s, "/api/explore?stream=1&deadline=5s", builtinSource(t, "old-token-first"))
	checkResponse(t, "POST /api/explore?stream=1", rec, http.StatusOK, "text/event-stream")
	events := readEvents(t, rec.Body.String())
	if len(events) < 2 || events[0].name != "progress" || events[len(events)-1].name != "result" {
		t.Fatalf("POST /api/explore?stream=1: events %+v, want progress first and result last", events)
	}
	var progress struct {
		Budget     int   `json:"budget"`
		DeadlineMS int64 `json:"deadline_ms"`
	}
	if err := json.Unmarshal([]byte(events[0].data), &progress); err != nil || progress.Budget != 200_000 || progress.DeadlineMS != 5000 {
		t.Errorf("progress event %s (%v): want budget 200000 and deadline_ms 5000", events[0].data, err)
	}
	var result struct {
		HTML        string `json:"html"`
		Exploration struct {
			Orderings int  `json:"orderings"`
			Complete  bool `json:"complete"`
		} `json:"exploration"`
	}
	if err := json.Unmarshal([]byte(events[len(events)-1].data), &result); err != nil {
		t.Fatalf("result event: %v", err)
	}
	if result.Exploration.Orderings != 420 || !result.Exploration.Complete {
		t.Errorf("result event: exploration %+v, want 420 orderings, complete", result.Exploration)
	}
	frag := parsePage(t, []byte(result.HTML))
	if got := frag.exploreCell(t, "authoritative", "counterexample"); got != "✓ clean in all 420 orderings" {
		t.Errorf("result event: authoritative's counterexample cell = %q", got)
	}
}

// TestExploreStreamCancel stops the exploration when the client leaves.
func TestExploreStreamCancel(t *testing.T) {
	t.Parallel()
	entered := make(chan struct{})
	seen := make(chan error, 1)
	var first sync.Once
	s := newExploreServer(t, server.ExploreConfig{Limit: 1, Run: func(ctx context.Context, sc *lab.Scenario, opt lab.ExploreOptions) *lab.Exploration {
		first.Do(func() {
			close(entered)
			<-ctx.Done()
			seen <- ctx.Err()
		})
		return lab.Explore(ctx, sc, opt)
	}})
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequest(http.MethodPost, "/api/explore?stream=1", strings.NewReader(builtinSource(t, "old-token-first"))).WithContext(ctx)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() { s.ServeHTTP(rec, req); close(done) }()
	<-entered
	cancel()
	<-done
	if err := <-seen; err != context.Canceled {
		t.Errorf("after the client left, the exploration's context says %v, want context.Canceled", err)
	}
	if strings.Contains(rec.Body.String(), "event: result") {
		t.Errorf("a result was sent to a client that left")
	}
	checkResponse(t, "GET /explore after a cancel (the slot is free)", get(t, s, "/explore?from=paused-worker"), http.StatusOK, htmlType)
}
