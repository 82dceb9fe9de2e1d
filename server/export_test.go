package server_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"fencelab/lab"
	"fencelab/views/export"
	"fencelab/views/paths"
)

const (
	markdownType = "text/markdown; charset=utf-8"
	svgType      = "image/svg+xml; charset=utf-8"
)

// saveRun saves a built-in through the API and returns the run's id.
func saveRun(t *testing.T, h http.Handler, name string) string {
	t.Helper()
	rec := postJSON(t, h, "/api/runs", builtinSource(t, name))
	checkResponse(t, "POST /api/runs "+name, rec, http.StatusCreated, jsonType)
	var saved struct{ ID string }
	if err := json.Unmarshal(rec.Body.Bytes(), &saved); err != nil {
		t.Fatalf("decode saved run: %v", err)
	}
	return saved.ID
}

// cliMarkdown is what `fencelab replay --scenario NAME --format markdown
// --policies ...` prints: export.Markdown without a link.
func cliMarkdown(t *testing.T, name string, policies ...lab.Policy) string {
	t.Helper()
	b, _ := testLibrary(t).Get(name)
	var buf bytes.Buffer
	if err := export.Markdown(&buf, b.Scenario, lab.Replay(b.Scenario), policies, "", ""); err != nil {
		t.Fatalf("export.Markdown: %v", err)
	}
	return buf.String()
}

// TestRunMarkdown exports a saved paused-worker as the CLI prints it, plus
// the picture and the permanent link; ?p= picks the columns and stays in
// the link.
func TestRunMarkdown(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	id := saveRun(t, s, "paused-worker")
	tests := []struct {
		name, query, link, diagram string
		policies                   []lab.Policy
	}{
		{"default policies", "", "", "fenced", []lab.Policy{lab.Unfenced, lab.Fenced}},
		{"chosen policies", "?p=fenced-register&p=unfenced", "?p=unfenced&p=fenced-register", "unfenced", []lab.Policy{lab.Unfenced, lab.FencedRegister}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := paths.RunMarkdownPath(id) + tt.query
			rec := get(t, s, target)
			checkResponse(t, "GET "+target, rec, http.StatusOK, markdownType)
			picture := "![Space-time diagram of The lease ended before the process stopped](http://example.com/r/" + id + ".png?size=full&d=" + tt.diagram + ")\n\n"
			want := strings.Replace(cliMarkdown(t, "paused-worker", tt.policies...), "| # |", picture+"| # |", 1) +
				"\nPermanent link: <http://example.com/r/" + id + tt.link + "> (engine " + lab.Version + ")\n"
			if diff := cmp.Diff(want, rec.Body.String()); diff != "" {
				t.Errorf("GET %s: not the CLI's Markdown plus the link (-want +got):\n%s", target, diff)
			}
		})
	}
	body := get(t, s, paths.RunMarkdownPath(id)).Body.String()
	for _, line := range []string{
		"| 8 | A | write → result \"old-result\" token=41 · _A writes old-result with its old token 41_ | 41 | **accepted** nothing checks the token · result = old-result (41) | **rejected** `41 < 42` already accepted · result = new-result (42) |",
		"- **unfenced**: final result = old-result; corrupting: stale-overwrite at step 8; deposed: superseded-write at step 8, unowned-write at step 8",
		"- **fenced**: final result = new-result; no violations",
	} {
		if !strings.Contains(body, line+"\n") {
			t.Errorf("GET /r/{id}.md lacks the line\n%s", line)
		}
	}
}

// TestRunJSON answers what GET /api/runs/{id} answers, byte for byte, with
// every field.
func TestRunJSON(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	id := saveRun(t, s, "paused-worker")
	rec := get(t, s, paths.RunJSONPath(id))
	checkResponse(t, "GET /r/{id}.json", rec, http.StatusOK, jsonType)
	if api := get(t, s, paths.APIRunPath(id)); !bytes.Equal(rec.Body.Bytes(), api.Body.Bytes()) {
		t.Errorf("GET /r/{id}.json differs from GET /api/runs/{id}:\n%s", cmp.Diff(api.Body.String(), rec.Body.String()))
	}
	var run map[string]json.RawMessage
	if err := json.Unmarshal(rec.Body.Bytes(), &run); err != nil {
		t.Fatalf("decode: %v", err)
	}
	want := []string{"created_at", "engine_version", "id", "scenario", "trace"}
	if diff := cmp.Diff(want, lab.SortedNames(run)); diff != "" {
		t.Errorf("GET /r/{id}.json fields (-want +got):\n%s", diff)
	}
	if got := string(run["id"]); got != `"`+id+`"` {
		t.Errorf("GET /r/{id}.json id = %s, want %q", got, id)
	}
	if got := string(run["engine_version"]); got != `"`+lab.Version+`"` {
		t.Errorf("GET /r/{id}.json engine_version = %s, want %q", got, lab.Version)
	}
	var tr lab.Trace
	if err := json.Unmarshal(run["trace"], &tr); err != nil || len(tr.Steps) != 8 {
		t.Errorf("GET /r/{id}.json trace: %d steps, err %v; want 8 steps", len(tr.Steps), err)
	}
	if _, err := lab.Parse(bytes.NewReader(run["scenario"])); err != nil {
		t.Errorf("GET /r/{id}.json scenario does not parse: %v", err)
	}
}

// svgBands parses an SVG document and returns its root's title and the
// data-step of each band, in order.
func svgBands(t *testing.T, body []byte) (title string, steps []string) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return title, steps
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch {
		case el.Name.Local == "g" && strings.Contains(" "+xmlAttr(el, "class")+" ", " band "):
			steps = append(steps, xmlAttr(el, "data-step"))
		case el.Name.Local == "title" && title == "":
			if err := dec.DecodeElement(&title, &el); err != nil {
				t.Fatalf("decode title: %v", err)
			}
		}
	}
}

func xmlAttr(el xml.StartElement, name string) string {
	for _, a := range el.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// TestRunSVG draws the diagram alone: XML with one band per step, under
// ?d= or, without it, the policy the run page shows.
func TestRunSVG(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	id := saveRun(t, s, "paused-worker")
	tests := []struct{ query, policy string }{
		{"", "fenced"},
		{"?d=unfenced", "unfenced"},
		{"?p=authoritative&p=unfenced", "unfenced"},
		{"?d=nonsense", "fenced"},
	}
	for _, tt := range tests {
		target := paths.RunSVGPath(id) + tt.query
		rec := get(t, s, target)
		checkResponse(t, "GET "+target, rec, http.StatusOK, svgType)
		title, steps := svgBands(t, rec.Body.Bytes())
		if want := "— under " + tt.policy; !strings.HasSuffix(title, want) {
			t.Errorf("GET %s: title %q, want it to end %q", target, title, want)
		}
		if got, want := strings.Join(steps, ","), "1,2,3,4,5,6,7,8"; got != want {
			t.Errorf("GET %s: bands for steps %s, want %s", target, got, want)
		}
	}
}

// TestRunSuffixes answers 404 for an unknown run under every suffix, and
// for an unknown suffix of a known run; malformed ids never reach the store.
func TestRunSuffixes(t *testing.T) {
	t.Parallel()
	counted := &countingStore{Runs: openDB(t, t.TempDir())}
	s := newServer(t, counted, testSecret, nil)
	id := saveRun(t, s, "paused-worker")
	counted.queries = 0
	for _, target := range []string{
		"/r/AAAAAAAAAAAAAAAA.md", "/r/AAAAAAAAAAAAAAAA.json", "/r/AAAAAAAAAAAAAAAA.svg", "/r/AAAAAAAAAAAAAAAA/present",
	} {
		rec := get(t, s, target)
		checkResponse(t, "GET "+target, rec, http.StatusNotFound, "text/html; charset=utf-8")
		if !strings.Contains(rec.Body.String(), "no saved run") {
			t.Errorf("GET %s: 404 page does not say there is no saved run", target)
		}
	}
	if counted.queries != 4 {
		t.Errorf("four well-formed unknown ids reached the store %d times, want 4", counted.queries)
	}
	counted.queries = 0
	for _, target := range []string{
		"/r/" + id + ".txt", "/r/" + id + ".", "/r/" + id + ".md.md", "/r/" + id + ".MD", "/r/" + id + "..svg",
		"/r/short.md", "/r/short.json", "/r/.svg", "/r/AAAAAAAAAAAAAAA!.md", "/r/short/present",
	} {
		if rec := get(t, s, target); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", target, rec.Code)
		}
	}
	if counted.queries != 0 {
		t.Errorf("unknown suffixes and malformed ids reached the store %d times, want 0", counted.queries)
	}
	if rec := do(t, s, http.MethodHead, paths.RunMarkdownPath(id), "", nil); rec.Code != http.StatusOK {
		t.Errorf("HEAD /r/{id}.md: status %d, want 200", rec.Code)
	}
}
