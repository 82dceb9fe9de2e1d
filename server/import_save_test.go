package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fencelab/lab/logs"
)

// exampleImport imports docs/import with its mapping, as fencelab import
// does, and gives the body fencelab import --save posts.
func exampleImport(t *testing.T, skew time.Duration) (*logs.Result, map[string]any) {
	t.Helper()
	return exampleImportBudget(t, skew, 200_000)
}

// exampleImportBudget is exampleImport exploring at most budget states.
func exampleImportBudget(t *testing.T, skew time.Duration, budget int) (*logs.Result, map[string]any) {
	t.Helper()
	dir := filepath.Join("..", "docs", "import")
	mf, err := os.Open(filepath.Join(dir, "mapping.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer mf.Close()
	m, err := logs.ReadMapping(mf)
	if err != nil {
		t.Fatal(err)
	}
	im := logs.New(m, logs.Options{Skew: skew, Explore: skew > 0, Budget: budget})
	files := []string{"scheduler.jsonl", "worker-1.log", "worker-2.log", "storage.csv"}
	for _, name := range files {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		err = im.Add(name, f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	res, err := im.Finish(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res, map[string]any{"scenario": res.Scenario, "import": logs.ForSaving(res, files)}
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAPISaveImport saves an import as fencelab import --save does: 201
// with its link, and the run page shows what the logs say the resource
// did; with a skew the orderings are kept and shown.
func TestAPISaveImport(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	_, body := exampleImport(t, 0)
	rec := postJSON(t, s, "/api/imports", marshal(t, body))
	checkResponse(t, "POST /api/imports", rec, http.StatusCreated, jsonType)
	var saved struct{ ID, URL string }
	if err := json.Unmarshal(rec.Body.Bytes(), &saved); err != nil || saved.ID == "" || !strings.HasSuffix(saved.URL, "/r/"+saved.ID) {
		t.Fatalf("POST /api/imports = %s, want {id, url}", rec.Body.String())
	}
	if loc := rec.Header().Get("Location"); loc != saved.URL {
		t.Errorf("Location = %q, want %q", loc, saved.URL)
	}
	run := get(t, s, "/r/"+saved.ID)
	checkResponse(t, "GET /r/"+saved.ID, run, http.StatusOK, htmlType)
	for _, want := range []string{"What the logs say the resource did", "expected (unfenced)", "storage.csv:4", "observed-agrees"} {
		if !strings.Contains(run.Body.String(), want) {
			t.Errorf("GET /r/%s: saved import lacks %q", saved.ID, want)
		}
	}
	// Saved again: the same link, no second run.
	if again := postJSON(t, s, "/api/imports", marshal(t, body)); again.Code != http.StatusCreated || !strings.Contains(again.Body.String(), saved.ID) {
		t.Errorf("POST /api/imports again = %d %s, want 201 with %s", again.Code, again.Body.String(), saved.ID)
	}

	res, body := exampleImport(t, 300*time.Millisecond)
	if res.Orderings == nil {
		t.Fatal("the import with a skew explored no orderings")
	}
	rec = postJSON(t, s, "/api/imports", marshal(t, body))
	if rec.Code != http.StatusCreated {
		t.Fatalf("POST /api/imports (skew) = %d %s", rec.Code, rec.Body.String())
	}
	json.Unmarshal(rec.Body.Bytes(), &saved)
	api := get(t, s, "/api/runs/"+saved.ID)
	var stored struct{ Observed logs.Saved }
	if err := json.Unmarshal(api.Body.Bytes(), &stored); err != nil || stored.Observed.Orderings == nil || stored.Observed.Skew != "300ms" {
		t.Errorf("GET /api/runs/%s: observed = %+v, %v; want the orderings and skew 300ms kept", saved.ID, stored.Observed, err)
	}
	page := get(t, s, "/r/"+saved.ID).Body.String()
	for _, want := range []string{"Every ordering the clocks allow (skew 300ms)", "orderings are consistent with the logs and the skew"} {
		if !strings.Contains(page, want) {
			t.Errorf("GET /r/%s (skew): page lacks %q", saved.ID, want)
		}
	}
}

// TestSavedImportOrderingsAreTheLabs: the orderings a saved import shows
// are the lab's own exploration of the order the import gives, not the
// client's counts: a body that says the explorer stopped before counting
// anything, or that names no order, is not believed.
func TestSavedImportOrderingsAreTheLabs(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	full, _ := exampleImport(t, 300*time.Millisecond)
	res, body := exampleImportBudget(t, 300*time.Millisecond, 3)
	if res.Orderings == nil || res.Orderings.Complete || res.Orderings.Orderings.Sign() != 0 {
		t.Fatalf("orderings %+v, want an exploration stopped before any ordering's end", res.Orderings)
	}
	rec := postJSON(t, s, "/api/imports", marshal(t, body))
	if rec.Code != http.StatusCreated {
		t.Fatalf("POST /api/imports = %d %s", rec.Code, rec.Body.String())
	}
	var saved struct{ ID string }
	json.Unmarshal(rec.Body.Bytes(), &saved)
	var stored struct{ Observed logs.Saved }
	if err := json.Unmarshal(get(t, s, "/api/runs/"+saved.ID).Body.Bytes(), &stored); err != nil || stored.Observed.Orderings == nil {
		t.Fatalf("GET /api/runs/%s: %v, orderings %v", saved.ID, err, stored.Observed.Orderings)
	}
	if got, want := stored.Observed.Orderings, full.Orderings; !got.Complete || got.Orderings.Cmp(want.Orderings) != 0 {
		t.Errorf("saved orderings: complete %v, %s of them; want the lab's own, complete, %s", got.Complete, got.Orderings, want.Orderings)
	}
	want := fmt.Sprintf("%s orderings are consistent with the logs and the skew.", full.Orderings.Orderings)
	if page := get(t, s, "/r/"+saved.ID).Body.String(); !strings.Contains(page, want) {
		t.Errorf("GET /r/%s: page lacks %q", saved.ID, want)
	}

	// An order that is not one: each is a 422 naming what is wrong.
	for _, tt := range []struct {
		after [][]int
		says  string
	}{
		{[][]int{nil, {1}, {9}}, "after[2]: step 9 is not a step before step 3"},
		{[][]int{{0}}, "after[0]: names 1 step before step 1, which has 0 steps before it"},
		{[][]int{nil, {0}}, "after[1]: step 0 is not a step before step 2"},
		{make([][]int, 10000), "after: 10000 entries for"},
		{[][]int{nil, {1, 1, 1}}, "after[1]: names 3 steps before step 2, which has 1 step before it"},
	} {
		im := body["import"].(logs.Saved)
		im.After = tt.after
		rec := postJSON(t, s, "/api/imports", marshal(t, map[string]any{"scenario": body["scenario"], "import": im}))
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), tt.says) {
			t.Errorf("POST /api/imports, after %.40v = %d %s; want 422 saying %q", tt.after, rec.Code, rec.Body.String(), tt.says)
		}
	}

	im := body["import"].(logs.Saved)
	im.After = nil
	rec = postJSON(t, s, "/api/imports", marshal(t, map[string]any{"scenario": body["scenario"], "import": im}))
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "without the order they were explored in") {
		t.Errorf("POST /api/imports, orderings without after = %d %s; want 422 naming the missing order", rec.Code, rec.Body.String())
	}
}

// TestAPISaveImportRefuses sends what does not fit: each is refused with
// a JSON error that says why, and nothing is saved.
func TestAPISaveImportRefuses(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	edit := func(f func(sc, im map[string]any)) string {
		_, body := exampleImport(t, 0)
		var both map[string]map[string]any
		json.Unmarshal([]byte(marshal(t, body)), &both)
		f(both["scenario"], both["import"])
		return marshal(t, both)
	}
	tests := []struct {
		name, body string
		status     int
		words      string
	}{
		{"not JSON", "{", http.StatusBadRequest, `{"scenario": {...}, "import": {...}}`},
		{"no import", `{"scenario": {"title": "x", "events": []}}`, http.StatusBadRequest, `{"scenario": {...}, "import": {...}}`},
		{"unknown field", edit(func(_, im map[string]any) { im["verdict"] = "fine" }), http.StatusBadRequest, "verdict"},
		{"bad scenario", edit(func(sc, _ map[string]any) { sc["events"] = []any{map[string]any{"kind": "teleport"}} }), http.StatusUnprocessableEntity, "teleport"},
		{"not an import", edit(func(_, im map[string]any) { im["source"] = "probe" }), http.StatusUnprocessableEntity, `source is "probe"`},
		{"step out of range", edit(func(_, im map[string]any) {
			im["observed"] = []any{map[string]any{"step": 99, "outcome": "applied"}}
		}), http.StatusUnprocessableEntity, "step 99 is not a step"},
		{"unknown outcome", edit(func(_, im map[string]any) {
			im["observed"] = []any{map[string]any{"step": 8, "outcome": "accepted"}}
		}), http.StatusUnprocessableEntity, `outcome "accepted"`},
		{"a verdict the replay denies", edit(func(_, im map[string]any) {
			v := im["against"].([]any)[2].(map[string]any) // client-check, which disagrees
			v["agrees"], v["first_disagreement"] = true, nil
		}), http.StatusUnprocessableEntity, "client-check is said to agree"},
		{"too few sources", edit(func(_, im map[string]any) { im["sources"] = []any{"a:1"} }), http.StatusUnprocessableEntity, "1 lines named for 12 steps"},
		{"no files", edit(func(_, im map[string]any) { im["files"] = []any{} }), http.StatusUnprocessableEntity, "files"},
	}
	big := `{"scenario": {}, "import": {"files": ["` + strings.Repeat("a", 5<<20) + `"]}}`
	tests = append(tests, struct {
		name, body string
		status     int
		words      string
	}{"over 4 MiB", big, http.StatusRequestEntityTooLarge, "over the limit of 4 MiB for a saved import"})
	for _, tt := range tests {
		rec := postJSON(t, s, "/api/imports", tt.body)
		var e struct{ Error string }
		json.Unmarshal(rec.Body.Bytes(), &e)
		if rec.Code != tt.status || e.Error == "" || !strings.Contains(e.Error, tt.words) && !strings.Contains(rec.Body.String(), tt.words) {
			t.Errorf("POST /api/imports (%s) = %d %s, want %d with an error naming %q", tt.name, rec.Code, rec.Body.String(), tt.status, tt.words)
		}
	}
}

// TestSavedImportPictures: every picture and export of a saved import says
// what the logs say the resource did beside the replay it draws, and the
// link preview says which policy the resource behaved like.
func TestSavedImportPictures(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	_, body := exampleImport(t, 0)
	rec := postJSON(t, s, "/api/imports", marshal(t, body))
	var saved struct{ ID string }
	if err := json.Unmarshal(rec.Body.Bytes(), &saved); err != nil || rec.Code != http.StatusCreated {
		t.Fatalf("POST /api/imports = %d %s", rec.Code, rec.Body.String())
	}
	r := "/r/" + saved.ID
	checks := []struct {
		target string
		want   []string
		not    []string
	}{
		// Under fenced (the default) the resource's applied at step 11 differs.
		{r + ".svg", []string{"the imported timeline replayed under fenced, beside what the logs say", "logs: applied (differs)",
			"The logs: like unfenced, worst corrupting: 3 violations at step 11 · drawn: fenced&#39;s replay", "applied is the model&#39;s accepted"}, nil},
		{r + ".svg?d=unfenced", []string{"logs: applied", "drawn: its replay"}, []string{"(differs)"}},
		{r, []string{`<meta property="og:description" content="From the logs: the resource behaved like unfenced: it applied token 41 after it had applied 42 (step 11, stale-overwrite)"`,
			"logs: applied (differs)", "the logs’ “applied” is the model’s “accepted”"}, nil},
		{r + "/embed", []string{"saved import", "From the logs: the resource behaved like unfenced", "logs: applied (differs)"}, nil},
		{r + ".md", []string{"### The logs beside unfenced, step by step", "| 11 | deliver w1-0001 | storage.csv:4 | applied | applied ✓ |",
			"The logs' “applied” is the model's “accepted”."}, nil},
	}
	for _, c := range checks {
		rec := httptest.NewRecorder() // the embed drops X-Frame-Options, which get checks
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, c.target, nil))
		if rec.Code != http.StatusOK {
			t.Errorf("GET %s = %d", c.target, rec.Code)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(rec.Body.String(), w) {
				t.Errorf("GET %s lacks %q", c.target, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(rec.Body.String(), w) {
				t.Errorf("GET %s has %q", c.target, w)
			}
		}
	}
	for _, target := range []string{r + ".png", r + ".png?size=full"} {
		rec := get(t, s, target)
		img, err := png.Decode(bytes.NewReader(rec.Body.Bytes()))
		if rec.Code != http.StatusOK || err != nil {
			t.Errorf("GET %s = %d, %v", target, rec.Code, err)
			continue
		}
		if target == r+".png" && (img.Bounds().Dx() != 1200 || img.Bounds().Dy() != 630) {
			t.Errorf("GET %s: the card is %v, want 1200×630", target, img.Bounds())
		}
	}
}

// TestSavedImportClocks: a saved import's page shows the clock offsets
// and the inferred steps it was saved with.
func TestSavedImportClocks(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	_, body := exampleImport(t, 0)
	var both map[string]map[string]any
	json.Unmarshal([]byte(marshal(t, body)), &both)
	both["import"]["clocks"] = map[string]any{"offsets": []any{map[string]any{"host": "worker-1", "offset_ms": -820,
		"sources": []any{"worker-1.log:5", "storage.csv:4"}, "words": "its send must precede the storage's deliver"}}, "contradiction": nil}
	both["import"]["inferred"] = []any{map[string]any{"step": 4, "kind": "expire", "sources": []any{"scheduler.jsonl:5"}, "words": "forced by the grant of 42"}}
	rec := postJSON(t, s, "/api/imports", marshal(t, both))
	var saved struct{ ID string }
	if err := json.Unmarshal(rec.Body.Bytes(), &saved); err != nil || rec.Code != http.StatusCreated {
		t.Fatalf("POST /api/imports = %d %s", rec.Code, rec.Body.String())
	}
	page := get(t, s, "/r/"+saved.ID).Body.String()
	for _, want := range []string{"<h3>Clocks</h3>", "worker-1 -820ms: its send must precede the storage&#39;s deliver", "inferred: forced by the grant of 42"} {
		if !strings.Contains(page, want) {
			t.Errorf("GET /r/%s lacks %q", saved.ID, want)
		}
	}
	md := get(t, s, "/r/"+saved.ID+".md").Body.String()
	for _, want := range []string{"### Clocks\n\n- worker-1 -820ms: its send must precede the storage's deliver", "### Inferred steps\n\n- step 4, expire: forced by the grant of 42"} {
		if !strings.Contains(md, want) {
			t.Errorf("GET /r/%s.md lacks %q", saved.ID, want)
		}
	}
}
