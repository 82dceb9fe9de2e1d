package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"fencelab/lab"
	"fencelab/lab/draft"
	"fencelab/views/export"
	"fencelab/views/htmltest"
)

// TestEditedCopiesSayOnlyWhatTheyRan edits every built-in in the editor in
// one way that changes its outcome (two events swapped), saves it, and
// reads the saved page and its Markdown: no sentence of the built-in's
// description may stand there as the copy's own, only inside the
// paragraph labelled "NAME's lesson, before your edit:", and each verdict
// shown is the copy's own trace.
func TestEditedCopiesSayOnlyWhatTheyRan(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	for _, b := range testLibrary(t).List {
		t.Run(b.Name, func(t *testing.T) {
			form := editorForm(t, editorPage(t, s, http.MethodGet, "/lab?from="+b.Name, nil, http.StatusOK))
			label := export.LessonLabel(b.Name, export.BeforeEdit)
			if d := form.Get("description"); b.Scenario.Description != "" && !strings.HasPrefix(d, label+" ") {
				t.Fatalf("the copy's description field starts %q, want the original's words labelled %q", d[:min(len(d), 80)], label)
			}
			edited, tr := outcomeChangingSwap(t, form, lab.Replay(b.Scenario))
			rec := postForm(t, s, "/lab/save", edited)
			if rec.Code != http.StatusSeeOther {
				t.Fatalf("POST /lab/save: %d %s", rec.Code, rec.Body.String())
			}
			loc, _, _ := strings.Cut(rec.Header().Get("Location"), "?")
			pg := editorPage(t, s, http.MethodGet, loc, nil, http.StatusOK)
			mdRec := get(t, s, loc+".md")
			if mdRec.Code != http.StatusOK {
				t.Fatalf("GET %s.md: %d", loc, mdRec.Code)
			}
			md := mdRec.Body.String()

			sentences := sentencesOf(b.Scenario.Description)
			// The page: what is left once the original's paragraph is taken out.
			desc := htmltest.Find(pg.root, func(e *html.Node) bool { return e.Data == "div" && htmltest.HasClass(e, "description") })
			if b.Scenario.Description != "" {
				if desc == nil {
					t.Fatal("the saved page shows no description")
				}
				orig := htmltest.Find(desc, func(e *html.Node) bool { return htmltest.HasClass(e, "original-lesson") })
				if orig == nil || !strings.HasPrefix(htmltest.Text(orig), label) {
					t.Fatalf("the saved page shows the original's words without the label %q", label)
				}
				orig.Parent.RemoveChild(orig)
			}
			// The events' own notes travel with them: the words to check are
			// the page's but the table's and the diagram's (whose notes
			// are the events'), and the Markdown's above its table.
			for _, n := range htmltest.FindAll(pg.root, func(e *html.Node) bool {
				return htmltest.HasClass(e, "report") || htmltest.HasClass(e, "diagram-panel") || e.Data == "svg"
			}) {
				if n.Parent != nil {
					n.Parent.RemoveChild(n)
				}
			}
			own := htmltest.Text(pg.root)
			var mdOwn []string
			above, _, _ := strings.Cut(md, "\n| # |")
			for _, l := range strings.Split(above, "\n") {
				if !strings.HasPrefix(l, "> **") {
					mdOwn = append(mdOwn, l)
				} else if !strings.HasPrefix(unescape(l), "> **"+label+"**") {
					t.Errorf("the Markdown quotes %q, want the label %q", l[:min(len(l), 80)], label)
				}
			}
			mdText := unescape(strings.Join(mdOwn, "\n"))
			for _, sen := range sentences {
				if strings.Contains(own, sen) {
					t.Errorf("the saved page says, as its own, the original's %q", sen)
				}
				if strings.Contains(mdText, sen) {
					t.Errorf("the Markdown says, as its own, the original's %q", sen)
				}
			}
			// What the page and the Markdown do say of the outcome is the copy's trace.
			for _, p := range pg.columns() {
				sum := tr.Summary[lab.Policy(p)]
				for _, name := range lab.SortedNames(sum.Final) {
					v := "empty"
					if sum.Final[name] != nil {
						v = *sum.Final[name]
					}
					if want := name + " ends as " + v; !strings.Contains(pg.verdict(t, p), want) {
						t.Errorf("the verdict of %s reads %q, want %q", p, pg.verdict(t, p), want)
					}
				}
				if want := fmt.Sprintf("- **%s**: %s", p, export.Verdict(sum)); !strings.Contains(unescape(md), want) {
					t.Errorf("the Markdown lacks %q", want)
				}
			}
		})
	}
}

// outcomeChangingSwap swaps two events of the editor's form, the first
// pair that gives a valid draft whose verdicts differ from the original's.
func outcomeChangingSwap(t *testing.T, form url.Values, orig *lab.Trace) (url.Values, *lab.Trace) {
	t.Helper()
	n := 0
	for k := range form {
		var i int
		if _, err := fmt.Sscanf(k, "ev.%d.", &i); err == nil && i > n {
			n = i
		}
	}
	for i := 1; i <= n; i++ {
		for j := i + 1; j <= n; j++ {
			f := swapEvents(form, i, j)
			d := draft.Decode(f)
			sc, err := draft.Compile(&d)
			if err != nil {
				continue
			}
			tr := lab.Replay(sc)
			for _, p := range lab.Policies() {
				if export.Verdict(tr.Summary[p]) != export.Verdict(orig.Summary[p]) {
					return f, tr
				}
			}
		}
	}
	t.Fatal("no swap of two events changes a verdict")
	return nil, nil
}

func swapEvents(form url.Values, i, j int) url.Values {
	a, b := fmt.Sprintf("ev.%d.", i), fmt.Sprintf("ev.%d.", j)
	f := url.Values{}
	for k, v := range form {
		switch {
		case strings.HasPrefix(k, a):
			k = b + strings.TrimPrefix(k, a)
		case strings.HasPrefix(k, b):
			k = a + strings.TrimPrefix(k, b)
		}
		f[k] = v
	}
	return f
}

// sentencesOf splits a description into its sentences long enough to say
// something of an outcome.
func sentencesOf(desc string) []string {
	var out []string
	for _, s := range regexp.MustCompile(`[.;:]\s+`).Split(strings.Join(strings.Fields(desc), " "), -1) {
		if s = strings.TrimSpace(s); len(s) >= 25 {
			out = append(out, s)
		}
	}
	return out
}

func unescape(s string) string { return strings.NewReplacer(`\`, "", "`", "").Replace(s) }

// TestUnknownPolicyNotice: a policy name that names no policy is left out
// with a sentence that says so, on the scenario page and a run's.
func TestUnknownPolicyNotice(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	rec := postJSON(t, s, "/api/runs", builtinSource(t, "paused-worker"))
	var saved struct{ ID string }
	if err := json.Unmarshal(rec.Body.Bytes(), &saved); err != nil || saved.ID == "" {
		t.Fatalf("POST /api/runs: %d %s", rec.Code, rec.Body.String())
	}
	for _, path := range []string{"/scenarios/paused-worker", "/r/" + saved.ID} {
		pg := editorPage(t, s, http.MethodGet, path+"?p=bogus&p=fenced&d=nope", nil, http.StatusOK)
		n := htmltest.Find(pg.root, func(e *html.Node) bool { return htmltest.HasClass(e, "unknown-policies") })
		if n == nil || !strings.Contains(htmltest.Text(n), "“bogus” or “nope”") || !strings.Contains(htmltest.Text(n), "shows fenced") {
			t.Errorf("GET %s?p=bogus&p=fenced&d=nope: no notice that bogus and nope name no policy", path)
		}
		pg = editorPage(t, s, http.MethodGet, path+"?p=fenced", nil, http.StatusOK)
		if htmltest.Find(pg.root, func(e *html.Node) bool { return htmltest.HasClass(e, "unknown-policies") }) != nil {
			t.Errorf("GET %s?p=fenced: a notice of unknown policies", path)
		}
	}
}

// TestManyUnknownPolicies: a link of thousands of junk names gets a
// notice of a line, the first few quoted and the rest counted, not the
// whole URL quoted back.
func TestManyUnknownPolicies(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	q := url.Values{"p": {"fenced"}}
	for i := range 5000 {
		q.Add("p", fmt.Sprintf("junk%d", i))
	}
	q.Add("p", "junk0") // a name twice counts once
	pg := editorPage(t, s, http.MethodGet, "/scenarios/paused-worker?"+q.Encode(), nil, http.StatusOK)
	n := htmltest.Find(pg.root, func(e *html.Node) bool { return htmltest.HasClass(e, "unknown-policies") })
	if n == nil {
		t.Fatal("no notice of the unknown names")
	}
	text := htmltest.Text(n)
	if !strings.Contains(text, "“junk0” or “junk1”") || !strings.Contains(text, "“junk9”") || strings.Contains(text, "junk10") ||
		!strings.Contains(text, "nor by 4990 other names") || !strings.Contains(text, "shows fenced") {
		t.Errorf("the notice reads %q; want junk0 to junk9 quoted, 4990 others counted, and fenced shown", text)
	}
}

// TestCASSaysWhenItDecidesLikeUnfenced: on a scenario without a
// read-modify-write, cas's verdict and its explorer line say why it
// equals unfenced; with one, they do not.
func TestCASSaysWhenItDecidesLikeUnfenced(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	for name, want := range map[string]bool{"paused-worker": true, "stale-read-fresh-token": false} {
		for _, path := range []string{"/scenarios/" + name + "?p=unfenced&p=cas", "/explore?from=" + name} {
			pg := editorPage(t, s, http.MethodGet, path, nil, http.StatusOK)
			n := htmltest.Find(pg.root, func(e *html.Node) bool { return htmltest.HasClass(e, "cas-note") })
			switch {
			case want && (n == nil || !strings.Contains(htmltest.Text(n), "as unfenced does")):
				t.Errorf("GET %s: cas decides as unfenced, and no sentence says why", path)
			case !want && n != nil:
				t.Errorf("GET %s: %q, but a write here is a read-modify-write", path, htmltest.Text(n))
			}
		}
	}
}
