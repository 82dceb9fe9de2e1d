package server_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/html"

	"fencelab/lab"
	"fencelab/lab/probe"
	"fencelab/lab/receiver"
	"fencelab/views/export"
	"fencelab/views/htmltest"
)

// probeForgetful probes the forgetful reference receiver on loopback with
// forgetful-receiver, as `fencelab probe` does.
func probeForgetful(t *testing.T) (*probe.Prober, *lab.Scenario, *probe.Result) {
	p, sc, res, _ := probeForgetfulCounted(t)
	return p, sc, res
}

// probeForgetfulCounted also counts the requests the receiver gets.
func probeForgetfulCounted(t *testing.T) (*probe.Prober, *lab.Scenario, *probe.Result, *atomic.Int64) {
	t.Helper()
	opt := receiver.Options{Policy: lab.Fenced, Flaw: receiver.Forgetful}
	db, err := receiver.OpenSQLite(filepath.Join(t.TempDir(), "receiver.db"), opt)
	if err != nil {
		t.Fatal(err)
	}
	h := receiver.Handler(db, opt, slog.New(slog.NewTextHandler(io.Discard, nil)))
	hits := new(atomic.Int64)
	rs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { rs.Close(); db.Close() })
	c, err := probe.NewClient(rs.URL, 5*time.Second, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	p := &probe.Prober{Client: c, Policy: lab.Fenced, Remember: lab.Durable}
	b, _ := testLibrary(t).Get("forgetful-receiver")
	res, err := p.Sequential(t.Context(), b.Scenario)
	if err != nil || res.Verdict != probe.Disagree {
		t.Fatalf("Sequential(forgetful-receiver) = %v, %v; want a disagreement", res, err)
	}
	return p, b.Scenario, res, hits
}

// TestSaveProbe: --save stores the observation at a real fencelab server
// on loopback; its page shows expected beside observed with the first
// divergence highlighted, and saving it again gives the same link.
func TestSaveProbe(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	web := httptest.NewServer(s)
	t.Cleanup(web.Close)
	p, sc, res, hits := probeForgetfulCounted(t)
	before := hits.Load()
	played, err := p.SavedScenario(sc, res)
	if err != nil {
		t.Fatal(err)
	}
	link, err := probe.Save(t.Context(), web.URL, played, res)
	if err != nil {
		t.Fatalf("Save: %v", err)
	}
	again, err := probe.Save(t.Context(), web.URL, played, res)
	if err != nil || again != link {
		t.Errorf("Save twice = %q, %v; want the same link %q", again, err, link)
	}
	path := strings.TrimPrefix(link, web.URL)
	if !runLink.MatchString(path) {
		t.Fatalf("Save returned %q, want a run link", link)
	}
	page := get(t, s, path)
	checkResponse(t, "GET "+path, page, http.StatusOK, htmlType)
	pg := parsePage(t, page.Body.Bytes())
	first := htmltest.Find(pg.root, func(n *html.Node) bool { return htmltest.HasClass(n, "observed-first") })
	if first == nil || htmltest.Attr(first, "id") != "observed-8" {
		t.Fatalf("GET %s: no highlighted first divergence at step 8", path)
	}
	for _, want := range []string{`rejected; holds new-result @42`, `applied; holds old-result @41`, "differs"} {
		if !strings.Contains(htmltest.Text(first), want) {
			t.Errorf("GET %s: the highlighted row %q lacks %q", path, htmltest.Text(first), want)
		}
	}
	// The page's words are of the resource the probe ran (durable), not of
	// the scenario's (forgetful), and its verdicts say they are the model's.
	if cell := pg.cell(t, 6, "Event"); strings.Contains(cell, "forgets") {
		t.Errorf("GET %s: step 6 reads %q: the scenario's note of a forgetful resource, beside a durable one", path, cell)
	}
	orig := htmltest.Find(pg.root, func(n *html.Node) bool { return htmltest.HasClass(n, "original-lesson") })
	if orig == nil || !strings.HasPrefix(htmltest.Text(orig), probe.OriginalLabel) {
		t.Errorf("GET %s: the scenario's description is not labelled as the original's", path)
	}
	if _, _, ok := export.CutOriginal(probe.OriginalLabel + " words"); !ok {
		t.Errorf("export.CutOriginal does not know probe.OriginalLabel %q", probe.OriginalLabel)
	}
	if md := get(t, s, path+".md").Body.String(); !strings.Contains(md, "### The model's verdicts\n\nWhat a receiver that keeps what fenced promises gives") || strings.Contains(md, "\n### Verdicts\n") || strings.Contains(md, "**unfenced**") {
		t.Errorf("GET %s.md: the verdicts do not say they are the model's under the claimed policy alone:\n%s", path, md)
	}
	note := htmltest.Find(pg.root, func(n *html.Node) bool { return htmltest.HasClass(n, "model-note") })
	if note == nil || !strings.Contains(htmltest.Text(note), "not what the receiver above did") {
		t.Errorf("GET %s: the verdicts do not say they are the model's, not the disagreeing receiver's", path)
	}
	if !strings.Contains(page.Body.String(), "step 8: the receiver applied &#34;old-result&#34; with token 41 after it had acknowledged token 42") {
		t.Errorf("GET %s: the divergence is not said in words", path)
	}
	if n := hits.Load() - before; n != 0 {
		t.Errorf("saving and showing the probe sent %d requests to the receiver; the server must never contact it", n)
	}
	md := get(t, s, path+".md")
	// The page and its Markdown show one diagram: the claimed policy's.
	id := path[len("/r/"):]
	if want := "/r/" + id + ".png?d=" + string(res.Policy) + "&amp;size=full"; !strings.Contains(page.Body.String(), want) {
		t.Errorf("GET %s: the page's full picture is not the claimed policy's diagram (no %s)", path, want)
	}
	if want := id + ".png?size=full&d=" + string(res.Policy); !strings.Contains(md.Body.String(), want) {
		t.Errorf("GET %s.md: its picture is not the claimed policy's diagram (no %s)", path, want)
	}
	for _, want := range []string{"## Probe: ", "| 8 | A | write", "**differs**"} {
		if !strings.Contains(md.Body.String(), want) {
			t.Errorf("GET %s.md lacks %q:\n%s", path, want, md.Body.String())
		}
	}
	api := get(t, s, "/api/runs/"+path[3:])
	var body struct {
		Observed probe.Result `json:"observed"`
	}
	if err := json.Unmarshal(api.Body.Bytes(), &body); err != nil || body.Observed.Verdict != probe.Disagree || len(body.Observed.Steps) != 3 {
		t.Errorf("GET /api/runs/%s observed = %+v, %v; want the disagreement with its 3 receiver steps", path[3:], body.Observed, err)
	}
}

// TestSavedProbeDrawsTheClaimedPolicy: a saved probe's page without ?p=
// shows the policy its receiver claims, fenced-strict here, in its table
// and its diagram alike, and its Markdown draws the same diagram.
func TestSavedProbeDrawsTheClaimedPolicy(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	web := httptest.NewServer(s)
	t.Cleanup(web.Close)
	opt := receiver.Options{Policy: lab.FencedStrict}
	db, err := receiver.OpenSQLite(filepath.Join(t.TempDir(), "receiver.db"), opt)
	if err != nil {
		t.Fatal(err)
	}
	rs := httptest.NewServer(receiver.Handler(db, opt, slog.New(slog.NewTextHandler(io.Discard, nil))))
	t.Cleanup(func() { rs.Close(); db.Close() })
	c, err := probe.NewClient(rs.URL, 5*time.Second, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	p := &probe.Prober{Client: c, Policy: lab.FencedStrict, Remember: lab.Durable}
	b, _ := testLibrary(t).Get("paused-worker")
	res, err := p.Sequential(t.Context(), b.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	played, err := p.SavedScenario(b.Scenario, res)
	if err != nil {
		t.Fatal(err)
	}
	link, err := probe.Save(t.Context(), web.URL, played, res)
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimPrefix(link, web.URL+"/r/")
	page := get(t, s, "/r/"+id).Body.String()
	if want := "/r/" + id + ".png?d=fenced-strict&amp;size=full"; !strings.Contains(page, want) {
		t.Errorf("GET /r/%s: the diagram is not the claimed fenced-strict's (no %s)", id, want)
	}
	if md := get(t, s, "/r/"+id+".md").Body.String(); !strings.Contains(md, id+".png?size=full&d=fenced-strict") {
		t.Errorf("GET /r/%s.md: its picture is not the claimed fenced-strict's diagram", id)
	}
}

// TestSaveProbeChecked: the expected column must be the model's, and the
// body what the probe sends.
func TestSaveProbeChecked(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p, sc, res := probeForgetful(t)
	played, _ := p.SavedScenario(sc, res)
	forged := probe.ForSaving(res)
	forged.Steps[2].Expected.Outcome = "applied"
	tests := []struct {
		name   string
		body   any
		status int
		words  string
	}{
		{"forged expectation", map[string]any{"scenario": played, "probe": forged}, http.StatusUnprocessableEntity, "not the model's"},
		{"not a probe", map[string]any{"scenario": played, "probe": map[string]any{"verdict": "agree", "x": 1}}, http.StatusBadRequest, "unknown field"},
		{"no scenario", map[string]any{"probe": forged}, http.StatusBadRequest, "scenario"},
		{"invalid scenario", map[string]any{"scenario": map[string]any{"version": 1}, "probe": forged}, http.StatusUnprocessableEntity, "missing: a title"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, _ := json.Marshal(tt.body)
			rec := postJSON(t, s, "/api/probes", string(b))
			if rec.Code != tt.status || !strings.Contains(rec.Body.String(), tt.words) {
				t.Errorf("POST /api/probes (%s) = %d %s, want %d mentioning %q", tt.name, rec.Code, rec.Body.String(), tt.status, tt.words)
			}
		})
	}
}
