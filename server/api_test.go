package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"fencelab/lab"
	"fencelab/views/paths"
)

// TestAPIReplay answers the engine's trace, byte for byte as encoding/json
// writes it, and saves nothing.
func TestAPIReplay(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	src := builtinSource(t, "paused-worker")
	rec := postJSON(t, s, "/api/replay", src)
	checkResponse(t, "POST /api/replay", rec, http.StatusOK, jsonType)

	sc, err := lab.Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(lab.Replay(sc))
	if got := bytes.TrimSuffix(rec.Body.Bytes(), []byte("\n")); !bytes.Equal(got, want) {
		t.Errorf("POST /api/replay body differs from json.Marshal(lab.Replay):\n%s", cmp.Diff(string(want), string(got)))
	}
	var tr lab.Trace
	if err := json.Unmarshal(rec.Body.Bytes(), &tr); err != nil {
		t.Fatalf("decode trace: %v", err)
	}
	finals := map[lab.Policy]string{lab.Unfenced: "old-result", lab.Fenced: "new-result"}
	for p, want := range finals {
		if got := tr.Summary[p].Final["result"]; got == nil || *got != want {
			t.Errorf("POST /api/replay: final result under %s = %v, want %q", p, got, want)
		}
	}
	if got := tr.Steps[7].Outcomes.Of(lab.Fenced).Decision; got != lab.Rejected {
		t.Errorf("POST /api/replay: step 8 under fenced = %q, want rejected", got)
	}
}

func TestAPIScenarios(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	rec := get(t, s, "/api/scenarios")
	checkResponse(t, "GET /api/scenarios", rec, http.StatusOK, jsonType)
	var list []struct{ Name, Title, Lesson string }
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
		t.Fatalf("decode: %v", err)
	}
	lib := testLibrary(t)
	if len(list) != len(lib.List) {
		t.Fatalf("GET /api/scenarios: %d entries, want %d", len(list), len(lib.List))
	}
	for i, b := range lib.List {
		want := struct{ Name, Title, Lesson string }{b.Name, b.Scenario.Title, b.Lesson}
		if list[i] != want {
			t.Errorf("GET /api/scenarios [%d] = %+v, want %+v", i, list[i], want)
		}
	}

	rec = get(t, s, "/api/scenarios/paused-worker")
	checkResponse(t, "GET /api/scenarios/paused-worker", rec, http.StatusOK, jsonType)
	if got := rec.Body.String(); got != builtinSource(t, "paused-worker") {
		t.Errorf("GET /api/scenarios/paused-worker is not the embedded file")
	}
}

// TestAPIRuns saves a run, saves it again (same id), and reads it back.
func TestAPIRuns(t *testing.T) {
	t.Parallel()
	s := newServerOnOwnDB(t) // created_at is the first save's, and this one must be that first
	src := builtinSource(t, "paused-worker")
	var ids []string
	for i := range 2 {
		rec := postJSON(t, s, "/api/runs", src)
		checkResponse(t, "POST /api/runs", rec, http.StatusCreated, jsonType)
		var saved struct{ ID, URL string }
		if err := json.Unmarshal(rec.Body.Bytes(), &saved); err != nil {
			t.Fatalf("decode: %v", err)
		}
		if len(saved.ID) != 16 || saved.URL != "http://example.com/r/"+saved.ID {
			t.Errorf("POST /api/runs #%d = %+v, want a 16-character id and its URL", i+1, saved)
		}
		ids = append(ids, saved.ID)
	}
	if ids[0] != ids[1] {
		t.Errorf("saving the same scenario twice gave ids %q and %q", ids[0], ids[1])
	}

	rec := get(t, s, paths.APIRunPath(ids[0]))
	checkResponse(t, "GET /api/runs/{id}", rec, http.StatusOK, jsonType)
	var run struct {
		Scenario      json.RawMessage `json:"scenario"`
		Trace         json.RawMessage `json:"trace"`
		EngineVersion string          `json:"engine_version"`
		CreatedAt     time.Time       `json:"created_at"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &run); err != nil {
		t.Fatalf("decode: %v", err)
	}
	replay := postJSON(t, s, "/api/replay", src)
	if !bytes.Equal(run.Trace, bytes.TrimSpace(replay.Body.Bytes())) {
		t.Errorf("GET /api/runs/{id}: stored trace differs from POST /api/replay")
	}
	sc, err := lab.Parse(bytes.NewReader(run.Scenario))
	if err != nil || sc.Title != "The lease ended before the process stopped" {
		t.Errorf("GET /api/runs/{id}: stored scenario does not parse back: %v", err)
	}
	if run.EngineVersion != lab.Version || time.Since(run.CreatedAt) > time.Minute {
		t.Errorf("GET /api/runs/{id}: engine_version %q, created_at %v", run.EngineVersion, run.CreatedAt)
	}
}

// TestBadInputs gets each bad input its status, a JSON error under /api
// and a page elsewhere, with the message that matters.
func TestBadInputs(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	paused := builtinSource(t, "paused-worker")
	unknownField := strings.Replace(paused, `"kind": "read"`, `"kind": "read", "colour": "red"`, 1)
	tests := []struct {
		name, method, target string
		body                 io.Reader
		status               int
		contentType          string
		contains             []string
	}{
		{"malformed JSON", "POST", "/api/replay", strings.NewReader(`{"version": 1,`), 400, jsonType, []string{"malformed JSON"}},
		{"not JSON at all", "POST", "/api/runs", strings.NewReader(`hello`), 400, jsonType, []string{"malformed JSON"}},
		{"unknown field", "POST", "/api/replay", strings.NewReader(unknownField), 422, jsonType, []string{`"index":2`, `"field":"colour"`}},
		{"unknown field on save", "POST", "/api/runs", strings.NewReader(unknownField), 422, jsonType, []string{`"field":"colour"`}},
		{"70 KiB body", "POST", "/api/replay", bytes.NewReader(bigBody(70 << 10)), 413, jsonType, []string{"64 KiB"}},
		{"70 KiB body, length unknown", "POST", "/api/runs", io.MultiReader(bytes.NewReader(bigBody(70 << 10))), 413, jsonType, []string{"64 KiB"}},
		{"10,000 events", "POST", "/api/replay", strings.NewReader(manyEvents(10000)), 422, jsonType, []string{`"field":"events"`, "500"}},
		{"unknown run id", "GET", "/api/runs/AAAAAAAAAAAAAAAA", nil, 404, jsonType, []string{"no saved run"}},
		{"unknown run page", "GET", "/r/AAAAAAAAAAAAAAAA", nil, 404, htmlType, []string{"no saved run"}},
		{"unknown scenario", "GET", "/api/scenarios/nope", nil, 404, jsonType, []string{"no built-in scenario"}},
		{"unknown API path", "GET", "/api/nope", nil, 404, jsonType, []string{`"errors":[]`}},
		{"no update", "PUT", "/api/runs/AAAAAAAAAAAAAAAA", strings.NewReader(paused), 405, jsonType, nil},
		{"no delete", "DELETE", "/r/AAAAAAAAAAAAAAAA", nil, 405, htmlType, []string{"Method not allowed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(t, s, tt.method, tt.target, "application/json", tt.body)
			call := tt.method + " " + tt.target
			checkResponse(t, call, rec, tt.status, tt.contentType)
			for _, want := range tt.contains {
				if !strings.Contains(rec.Body.String(), want) {
					t.Errorf("%s: body lacks %q:\n%.500s", call, want, rec.Body.String())
				}
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

// bigBody is a syntactically fine scenario padded past the limit.
func bigBody(size int) []byte {
	return []byte(`{"version":1,"title":"big","description":"` + strings.Repeat("x", size) + `","events":[]}`)
}

// manyEvents fits n events into a small body: the empty events are invalid
// too, but the count is what must be reported.
func manyEvents(n int) string {
	return `{"version":1,"title":"many","events":[` + strings.TrimSuffix(strings.Repeat("{},", n), ",") + `]}`
}

// TestBadRunIDs answers ids outside the id alphabet or length with a 404
// before any query.
func TestBadRunIDs(t *testing.T) {
	t.Parallel()
	counted := &countingStore{Runs: openDB(t, t.TempDir())}
	s := newServer(t, counted, testSecret, nil)
	ids := []string{"short", "AAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAA!", "AAAAAAAAAAAAAAA%2E", "%3Cscript%3E12345678", "AAAAAAAA.AAAAAAA", "%C3%84AAAAAAAAAAAAAA"}
	for _, id := range ids {
		for _, prefix := range []string{"/r/", "/api/runs/"} {
			rec := get(t, s, prefix+id)
			if rec.Code != http.StatusNotFound {
				t.Errorf("GET %s%s: status %d, want 404", prefix, id, rec.Code)
			}
		}
	}
	if counted.queries != 0 {
		t.Errorf("bad ids reached the store %d times, want 0", counted.queries)
	}
	get(t, s, "/r/AAAAAAAAAAAAAAAA")
	if counted.queries != 1 {
		t.Errorf("a well-formed id reached the store %d times, want 1", counted.queries)
	}
}
