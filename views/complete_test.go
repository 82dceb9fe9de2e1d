package views

import (
	"os"
	"strings"
	"testing"

	"fencelab/lab"
)

// The completeness tests range over everything the engine names: a policy,
// kind, invariant or class added to lab without its words or its entry in
// the documentation fails here, instead of rendering as an empty string.
// CONTRIBUTING.md lists the places to touch.

func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// documented reports whether the doc names w as code, `w`.
func documented(doc, w string) bool { return strings.Contains(doc, "`"+w+"`") }

func TestEveryPolicyComplete(t *testing.T) {
	t.Parallel()
	model, format := readDoc(t, "../docs/model.md"), readDoc(t, "../scenarios/README.md")
	for _, p := range lab.Policies() {
		if policyText[p] == "" {
			t.Errorf("policy %s has no words: add it to policyText in views/words.go", p)
		}
		if !documented(model, string(p)) {
			t.Errorf("policy %s is not in docs/model.md", p)
		}
		if !documented(format, string(p)) {
			t.Errorf("policy %s is not in scenarios/README.md", p)
		}
	}
}

func TestEveryKindComplete(t *testing.T) {
	t.Parallel()
	model, format := readDoc(t, "../docs/model.md"), readDoc(t, "../scenarios/README.md")
	for _, k := range lab.Kinds() {
		if kindText[k] == "" {
			t.Errorf("kind %s has no words: add it to kindText in views/editor.go", k)
		}
		if lab.Fields(k) == nil {
			t.Errorf("kind %s takes no fields: add it to the fields of lab/event.go", k)
		}
		if !strings.Contains(model, string(k)) {
			t.Errorf("kind %s is not in docs/model.md", k)
		}
		if !documented(format, string(k)) {
			t.Errorf("kind %s is not in scenarios/README.md", k)
		}
	}
}

func TestEveryInvariantComplete(t *testing.T) {
	t.Parallel()
	model := readDoc(t, "../docs/model.md")
	for _, inv := range lab.Invariants() {
		if invariantText[inv] == "" {
			t.Errorf("invariant %s has no words: add it to invariantText in views/words.go", inv)
		}
		if !documented(model, string(inv)) {
			t.Errorf("invariant %s is not in docs/model.md", inv)
		}
	}
}

func TestEveryClassComplete(t *testing.T) {
	t.Parallel()
	contract, model, css := readDoc(t, "../lab/doc.go"), readDoc(t, "../docs/model.md"), readDoc(t, "../static/css/site.css")
	for _, c := range lab.Classes() {
		if classText[c] == "" || classShort[c] == "" || classGlyph[c] == "" {
			t.Errorf("class %s lacks its words or its sign: add it to classText, classShort and classGlyph in views/class.go", c)
		}
		if !strings.Contains(css, "--"+string(c)+":") || !strings.Contains(css, ".cls-"+string(c)) {
			t.Errorf("class %s has no colour: add --%s and .cls-%s to static/css/site.css", c, c, c)
		}
		if !strings.Contains(contract, string(c)) || !strings.Contains(model, string(c)) {
			t.Errorf("class %s is not in lab/doc.go and docs/model.md", c)
		}
	}
}
