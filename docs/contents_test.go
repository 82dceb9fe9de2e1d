package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// withContents are the long pages that open with a contents list; any other
// page that has one is checked too.
var withContents = []string{"operations.md", "probe.md"}

// contentsEntry is a line of a contents list: a link to a heading of the
// page itself.
var contentsEntry = regexp.MustCompile(`^- \[(.*)\]\(#([^)]*)\)$`)

// TestContentsLists: a page's contents list names each of its ## sections,
// in order, by its heading's words and its GitHub anchor; a section added
// or renamed without its line fails here.
func TestContentsLists(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if !slices.Contains(withContents, page) && !strings.Contains(text, "\nContents:\n") {
			continue
		}
		for _, p := range contentsProblems(text) {
			t.Errorf("%s: %s", page, p)
		}
	}
}

// TestContentsProblemsFound proves the check can fail: a heading missing
// from the list, one listed that is not there, a wrong anchor, two out of
// order, a page without a list, and a heading in a code block, which is
// none.
func TestContentsProblemsFound(t *testing.T) {
	t.Parallel()
	cases := map[string]struct{ page, want string }{
		"missing": {"# P\n\nContents:\n\n- [A](#a)\n\n## A\n\n## B c\n", "## B c is not in the contents list"},
		"extra":   {"# P\n\nContents:\n\n- [A](#a)\n- [Gone](#gone)\n\n## A\n", "the contents list names Gone (#gone), which is no ## heading"},
		"anchor": {"# P\n\nContents:\n\n- [A b](#ab)\n\n## A b\n",
			"## A b is not in the contents list; the contents list names A b (#ab), which is no ## heading"},
		"order": {"# P\n\nContents:\n\n- [B](#b)\n- [A](#a)\n\n## A\n\n## B\n", "the contents list is out of order; want A, B"},
		"none":  {"# P\n\n## A\n", "no contents list (a line \"Contents:\" and a list of links)"},
		"code":  {"# P\n\nContents:\n\n- [A](#a)\n\n## A\n\n```\n## not a heading\n```\n", ""},
	}
	for name, c := range cases {
		got := strings.Join(contentsProblems(c.page), "; ")
		if got != c.want {
			t.Errorf("%s: problems %q, want %q", name, got, c.want)
		}
	}
}

// contentsProblems compares a page's contents list with its ## headings.
func contentsProblems(text string) []string {
	lines := prose(text)
	start := slices.Index(lines, "Contents:")
	if start < 0 {
		return []string{`no contents list (a line "Contents:" and a list of links)`}
	}
	type entry struct{ words, anchor string }
	var listed []entry
	for _, l := range lines[start+1:] {
		if m := contentsEntry.FindStringSubmatch(l); m != nil {
			listed = append(listed, entry{m[1], m[2]})
		} else if l != "" || len(listed) > 0 {
			break
		}
	}
	var headings []entry
	for _, l := range lines {
		if words, ok := strings.CutPrefix(l, "## "); ok {
			words = strings.TrimSpace(words)
			headings = append(headings, entry{words, slug(words)})
		}
	}
	var problems []string
	for _, h := range headings {
		if !slices.Contains(listed, h) {
			problems = append(problems, "## "+h.words+" is not in the contents list")
		}
	}
	for _, e := range listed {
		if !slices.Contains(headings, e) {
			problems = append(problems, "the contents list names "+e.words+" (#"+e.anchor+"), which is no ## heading")
		}
	}
	if problems == nil && !slices.Equal(listed, headings) {
		var want []string
		for _, h := range headings {
			want = append(want, h.words)
		}
		problems = append(problems, "the contents list is out of order; want "+strings.Join(want, ", "))
	}
	return problems
}
