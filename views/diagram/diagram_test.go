package diagram

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"fencelab/lab"
)

func TestDiagram(t *testing.T) {
	t.Parallel()
	cases := map[string]*lab.Scenario{
		"paused-worker":        builtin(t, "paused-worker"),
		"racy-receiver":        builtin(t, "racy-receiver"),
		"external-side-effect": builtin(t, "external-side-effect"),
		"delayed-request":      builtin(t, "delayed-request"),
		"generated-40":         generated(t, 40),
	}
	for name, s := range cases {
		tr := lab.Replay(s)
		for _, p := range lab.Policies() {
			t.Run(name+"/"+string(p), func(t *testing.T) {
				for form, out := range map[string][]byte{"Inline": renderPage(t, s, tr, p), "SVG": renderFile(t, s, tr, p)} {
					checkDiagram(t, fmt.Sprintf("%s(%s, %s)", form, name, p), readSVG(t, form, out), tr, p)
				}
			})
		}
	}
}

func checkDiagram(t *testing.T, call string, doc svgDoc, tr *lab.Trace, p lab.Policy) {
	t.Helper()
	var want []int
	for _, st := range tr.Steps {
		want = append(want, st.Index)
	}
	if !slices.Equal(doc.bands, want) {
		t.Errorf("%s bands = %v, want one per step %v", call, doc.bands, want)
	}
	if w := wantArrows(tr, p); doc.arrows != w {
		t.Errorf("%s has %d write arrows, want %d", call, doc.arrows, w)
	}
	if doc.styled {
		t.Errorf("%s carries a style attribute, <style> or <script>; the CSP forbids inline style", call)
	}
	if !strings.HasPrefix(doc.viewBox, "0 0 ") {
		t.Errorf("%s svg viewBox=%q, want one from the origin", call, doc.viewBox)
	}
	checkNamed(t, call, doc)
}

// checkNamed checks that the svg is named by its <title> and described by
// its <desc>: a picture (role img) labelled by both in a file, a group
// labelled by the title and described by the desc on a page, where its
// links must not sit inside a picture.
func checkNamed(t *testing.T, call string, doc svgDoc) {
	t.Helper()
	labelled, described := strings.Fields(doc.labelled), strings.Fields(doc.described)
	switch {
	case doc.role == "img" && len(labelled) == 2 && len(described) == 0:
		described = labelled[1:]
	case doc.role == "group" && len(labelled) == 1 && len(described) == 1:
	default:
		t.Errorf("%s svg role=%q aria-labelledby=%q aria-describedby=%q, want img labelled by title and desc, or group labelled by title and described by desc",
			call, doc.role, doc.labelled, doc.described)
		return
	}
	if doc.ids[labelled[0]] != "title" || doc.ids[described[0]] != "desc" {
		t.Errorf("%s aria-labelledby=%q aria-describedby=%q, want the ids of its <title> and <desc>; ids: %v", call, doc.labelled, doc.described, doc.ids)
	}
}

// Actor names are restricted, but titles, values and notes are free text.
func TestDiagramEscapesText(t *testing.T) {
	t.Parallel()
	title := `<script>alert("t")</script> & co`
	value := `<script>x</script>&amp;`
	s := parseScenario(t, map[string]any{
		"version": 1, "title": title, "description": "<b>d</b>",
		"events": []map[string]any{
			{"actor": "A", "kind": "acquire", "note": `</text><script>n</script>&`},
			{"actor": "A", "kind": "write", "value": value, "note": "bell"},
			{"actor": "A", "kind": "send", "value": "<&>", "id": "r1"},
			{"kind": "deliver", "request": "r1"},
		},
	})
	// Parsing refuses control characters now; a run saved before may hold one.
	s.Events[1].Note = "bell \u0007 and nul-free"
	tr := lab.Replay(s)
	for _, p := range []lab.Policy{lab.Unfenced, lab.Fenced} {
		for form, out := range map[string][]byte{"Inline": renderPage(t, s, tr, p), "SVG": renderFile(t, s, tr, p)} {
			if bytes.Contains(bytes.ToLower(out), []byte("<script")) {
				t.Errorf("%s(%s) lets <script> through unescaped:\n%s", form, p, out)
			}
			doc := readSVG(t, form, out)
			for _, want := range []string{title, value, "<&>"} {
				if !strings.Contains(doc.text, want) {
					t.Errorf("%s(%s) text lacks %q after decoding; escaped twice or dropped?", form, p, want)
				}
			}
		}
	}
}

// Every kind of event has its sign: skipped, refused, crash, restart,
// aborted and dropped requests, a request never delivered, a commit.
func TestDiagramMarks(t *testing.T) {
	t.Parallel()
	s := parseScenario(t, map[string]any{
		"version": 1, "title": "marks",
		"resources": map[string]any{"result": map[string]any{"fencing": true, "remember": "memory"}},
		"events": []map[string]any{
			{"actor": "A", "kind": "acquire"},
			{"actor": "B", "kind": "acquire"},
			{"actor": "A", "kind": "send", "value": "v", "id": "r1"},
			{"actor": "A", "kind": "pause"},
			{"actor": "A", "kind": "write", "value": "w"},
			{"actor": "A", "kind": "expire"},
			{"actor": "A", "kind": "resume"},
			{"actor": "A", "kind": "send", "value": "late", "id": "r2"},
			{"actor": "B", "kind": "acquire"},
			{"kind": "deliver", "request": "r1"},
			{"kind": "deliver", "request": "r2"},
			{"kind": "commit", "request": "r1"},
			{"kind": "restart", "resource": "result"},
			{"actor": "B", "kind": "send", "value": "lost", "id": "r3"},
			{"actor": "A", "kind": "crash"},
		},
	})
	tr := lab.Replay(s)
	cases := []struct {
		policy lab.Policy
		class  string
	}{
		{lab.Fenced, "band skipped"},
		{lab.Fenced, "arrow refused"},
		{lab.Fenced, "mark crash"},
		{lab.Fenced, "mark restart"},
		{lab.Fenced, "lease expired"},
		{lab.Fenced, "pause"},
		{lab.Fenced, "send"},
		{lab.ClientCheck, "aborted"},
		{lab.ClientCheck, "dropped"},
		{lab.FencedRacy, "arrow write applied commit"},
		{lab.FencedRacy, "arrow write checked delayed"},
		{lab.FencedRegister, "register"},
	}
	for _, c := range cases {
		doc := readSVG(t, "Diagram", renderPage(t, s, tr, c.policy))
		if doc.classes[c.class] == 0 {
			t.Errorf("Inline(marks, %s) has no element of class %q; classes: %v", c.policy, c.class, doc.classes)
		}
	}
	doc := readSVG(t, "Diagram", renderPage(t, s, tr, lab.Fenced))
	if !strings.Contains(doc.text, "never delivered") || !strings.Contains(doc.text, "skipped") {
		t.Errorf("Inline(marks, fenced) text lacks %q or %q:\n%s", "never delivered", "skipped", doc.text)
	}
}

func TestDiagramDeterministic(t *testing.T) {
	t.Parallel()
	s := generated(t, 40)
	tr := lab.Replay(s)
	for _, p := range lab.Policies() {
		if a, b := renderFile(t, s, tr, p), renderFile(t, s, tr, p); !bytes.Equal(a, b) {
			t.Errorf("SVG(generated-40, %s) differs between two renders", p)
		}
	}
}

func TestDiagramEmpty(t *testing.T) {
	t.Parallel()
	s := parseScenario(t, map[string]any{"version": 1, "title": "blank", "events": []any{}})
	tr := lab.Replay(s)
	doc := readSVG(t, "SVG", renderFile(t, s, tr, lab.Fenced))
	checkDiagram(t, "SVG(blank, fenced)", doc, tr, lab.Fenced)
}

func TestSVGIsADocument(t *testing.T) {
	t.Parallel()
	out := renderFile(t, builtin(t, "paused-worker"), lab.Replay(builtin(t, "paused-worker")), lab.Fenced)
	for _, want := range []string{`<?xml version="1.0" encoding="UTF-8"?>`, `<svg xmlns="http://www.w3.org/2000/svg"`, ` height="`} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("SVG(paused-worker, fenced) lacks %s", want)
		}
	}
	if bytes.Contains(out, []byte(`width="100%"`)) {
		t.Errorf("SVG(paused-worker, fenced) has width 100%%; a file needs its natural size")
	}
}

// BenchmarkDiagram lays out and renders a diagram, as a page does.
func BenchmarkDiagram(b *testing.B) {
	for name, s := range map[string]*lab.Scenario{"paused-worker": builtin(b, "paused-worker"), "generated-40": generated(b, 40)} {
		tr := lab.Replay(s)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := Inline(io.Discard, s, tr, lab.Unfenced, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestDiagramMarksInferred: an imported timeline's inferred expiry and
// computed pause are drawn as such, not as lines the logs wrote.
func TestDiagramMarksInferred(t *testing.T) {
	t.Parallel()
	s := parseScenario(t, map[string]any{
		"version": 1, "title": "inferred",
		"events": []map[string]any{
			{"actor": "A", "kind": "acquire", "note": "lease.log:1"},
			{"actor": "A", "kind": "pause", "note": "computed: a.log:2 (a pause of 15.8s, logged when it ended)"},
			{"actor": "A", "kind": "expire", "note": "inferred: lease.log:2"},
			{"actor": "B", "kind": "acquire", "note": "lease.log:2"},
			{"actor": "A", "kind": "resume", "note": "a.log:2"},
			{"actor": "A", "kind": "expire"},
		},
	})
	var b bytes.Buffer
	if err := SVG(&b, s, lab.Replay(s), lab.Fenced); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	for _, want := range []string{"expires (inferred)", "pause (computed)"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the diagram lacks %q", want)
		}
	}
	if n := strings.Count(svg, "(inferred)"); n != 1 {
		t.Errorf("%d marks say inferred, want only the inferred expiry", n)
	}
}
