package views_test

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"fencelab/lab"
	"fencelab/lab/draft"
	"fencelab/views"
	"fencelab/views/htmltest"
)

// The completeness tests range over everything the engine names: a policy,
// kind, invariant or class added to lab without its words or its entry in
// the documentation fails here, instead of rendering as an empty string.
// They read the words where the pages show them. CONTRIBUTING.md lists the
// places to touch.

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

// policyWords is each policy's line as the verdicts show it (policyText
// in views/words.go), read from the verdict card under its name.
func policyWords(t *testing.T) map[lab.Policy]string {
	sc, tr := builtin(t, "paused-worker")
	root := render(t, "Verdicts(every policy)", views.Verdicts(newReport(sc, tr, lab.Policies())))
	words := map[lab.Policy]string{}
	for _, card := range htmltest.FindAll(root, tagClass("article", "verdict")) {
		if h3, p := htmltest.Find(card, func(n *html.Node) bool { return n.Data == "h3" }), htmltest.Find(card, tagClass("p", "policy-text")); h3 != nil && p != nil {
			words[lab.Policy(htmltest.Text(h3))] = htmltest.Text(p)
		}
	}
	return words
}

func TestEveryPolicyComplete(t *testing.T) {
	t.Parallel()
	model, format := readDoc(t, "../docs/model.md"), readDoc(t, "../scenarios/README.md")
	words := policyWords(t)
	for _, p := range lab.Policies() {
		if words[p] == "" {
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

// kindWords is each kind's words as the editor's palette shows them
// (kindText in views/editor.go), the title of its chip.
func kindWords(t *testing.T) map[lab.Kind]string {
	root := render(t, "Editor(blank)", views.Editor(views.EditorPage{Draft: draft.Draft{Add: draft.Event{Kind: lab.Acquire}}}))
	words := map[lab.Kind]string{}
	for _, k := range lab.Kinds() {
		if chip := htmltest.Find(root, byID("palette-"+string(k))); chip != nil {
			words[k] = htmltest.Attr(htmltest.Find(chip, func(n *html.Node) bool { return n.Data == "label" }), "title")
		}
	}
	return words
}

func TestEveryKindComplete(t *testing.T) {
	t.Parallel()
	model, format := readDoc(t, "../docs/model.md"), readDoc(t, "../scenarios/README.md")
	words := kindWords(t)
	for _, k := range lab.Kinds() {
		if words[k] == "" {
			t.Errorf("kind %s has no words: add it to kindText in views/editor.go", k)
		}
		if lab.Fields(k) == nil {
			t.Errorf("kind %s takes no fields: give it its row in kindRules (lab/kind.go)", k)
		}
		if !strings.Contains(model, string(k)) {
			t.Errorf("kind %s is not in docs/model.md", k)
		}
		if !documented(format, string(k)) {
			t.Errorf("kind %s is not in scenarios/README.md", k)
		}
	}
}

// glossary is each term of the glossary's lists with its explanation:
// the classes (their rows in views/class) and the invariants
// (invariantText in views/words.go), by the term's first word.
func glossary(t *testing.T) map[string]string {
	root := render(t, "Glossary()", views.Glossary())
	words := map[string]string{}
	for _, dt := range htmltest.FindAll(root, func(n *html.Node) bool { return n.Data == "dt" }) {
		dd := dt.NextSibling
		for dd != nil && dd.Type != html.ElementNode {
			dd = dd.NextSibling
		}
		term := strings.Fields(htmltest.Text(dt))
		if len(term) == 0 || dd == nil || dd.Data != "dd" {
			continue
		}
		key := term[0] // an invariant, then its class
		if htmltest.Find(dt, tagClass("span", "cls-tag")) != nil {
			key = term[len(term)-1] // a class's sign, then the class
		}
		words[key] = htmltest.Text(dd)
	}
	return words
}

func TestEveryInvariantComplete(t *testing.T) {
	t.Parallel()
	model := readDoc(t, "../docs/model.md")
	words := glossary(t)
	for _, inv := range lab.Invariants() {
		if words[string(inv)] == "" {
			t.Errorf("invariant %s has no words: add it to invariantText in views/words.go", inv)
		}
		if !documented(model, string(inv)) {
			t.Errorf("invariant %s is not in docs/model.md", inv)
		}
	}
}

// classShortWords is each class in a few words, as the explorer's legend
// shows it (Short in views/class): "corrupting: data corrupted".
func classShortWords(t *testing.T) map[lab.Class]string {
	sc, _ := builtin(t, "paused-worker")
	r := exploreResult(t, sc)
	root := render(t, "ExploreResultSection(paused-worker)", views.ExploreResultSection(r))
	words := map[lab.Class]string{}
	if legend := htmltest.Find(root, tagClass("ul", "x-legend")); legend != nil {
		for _, li := range htmltest.FindAll(legend, func(n *html.Node) bool { return n.Data == "li" }) {
			if c, short, ok := strings.Cut(htmltest.Text(li), ":"); ok {
				words[lab.Class(strings.TrimSpace(c))] = strings.TrimSpace(short)
			}
		}
	}
	return words
}

func TestEveryClassComplete(t *testing.T) {
	t.Parallel()
	contract, model, css := readDoc(t, "../lab/doc.go"), readDoc(t, "../docs/model.md"), readDoc(t, "../static/css/site.css")
	words, short := glossary(t), classShortWords(t)
	for _, c := range lab.Classes() {
		if words[string(c)] == "" || short[c] == "" || views.ClassGlyph(c) == "" {
			t.Errorf("class %s lacks its words or its sign on the pages: fill its row in views/class (Words, Short, Glyph)", c)
		}
		if !strings.Contains(css, "--"+string(c)+":") || !strings.Contains(css, ".cls-"+string(c)) {
			t.Errorf("class %s has no colour: add --%s and .cls-%s to static/css/site.css", c, c, c)
		}
		if !strings.Contains(contract, string(c)) || !strings.Contains(model, string(c)) {
			t.Errorf("class %s is not in lab/doc.go and docs/model.md", c)
		}
	}
}
