package export

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"golang.org/x/net/html"

	"fencelab/lab"
)

// TestMarkdownRendersCleanly renders the export of a run whose text holds
// markup, addresses and an e-mail as two renderers would: CommonMark in
// safe mode (goldmark's default, which drops raw HTML as markdown-it's
// safe mode prints it) and GitHub's GFM (tables, autolinks). Each shows
// one heading with the title's own characters, the table whole (a row per
// step, a cell per column) and no raw HTML; GFM makes no link of the
// user's text, only of the lab's permanent link.
func TestMarkdownRendersCleanly(t *testing.T) {
	t.Parallel()
	s := builtin(t, "paused-worker")
	s.Title = `Tokens <b>bold</b> & *not em* | see https://evil.example/x or www.evil.example`
	s.Description = "Mail ops@evil.example about http://evil.example/y.\n\nA | B"
	s.Events[0].Note = "from https://evil.example/z"
	tr := lab.Replay(s)
	policies := []lab.Policy{lab.Unfenced, lab.Fenced}
	var md bytes.Buffer
	if err := Markdown(&md, s, tr, policies, "https://lab.example/r/x", "https://lab.example/r/x.png?size=full"); err != nil {
		t.Fatalf("Markdown: %v", err)
	}
	renderers := map[string]goldmark.Markdown{
		"CommonMark (safe)": goldmark.New(),
		"GFM":               goldmark.New(goldmark.WithExtensions(extension.GFM)),
	}
	for name, r := range renderers {
		var out bytes.Buffer
		if err := r.Convert(md.Bytes(), &out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rendered := out.String()
		doc, err := html.Parse(&out)
		if err != nil {
			t.Fatalf("%s: parse its HTML: %v", name, err)
		}
		if strings.Contains(rendered, "raw HTML omitted") {
			t.Errorf("%s of the export drops raw HTML: the export holds some\n%s", name, md.String())
		}
		if hs := elements(doc, "h2"); len(hs) != 1 || textOf(hs[0]) != s.Title {
			t.Errorf("%s: h2 headings %d, first %q; want one, %q", name, len(hs), textOf(first(hs)), s.Title)
		}
		for _, a := range elements(doc, "a") {
			if href := attrOf(a, "href"); href != "https://lab.example/r/x" {
				t.Errorf("%s: a link to %q; want only the permanent link", name, href)
			}
		}
		if name == "GFM" {
			checkTable(t, name, doc, len(tr.Steps), 4+len(policies))
		}
	}
}

// checkTable checks that the document has one table of rows+1 rows (with
// its head) of cols cells each.
func checkTable(t *testing.T, name string, doc *html.Node, rows, cols int) {
	t.Helper()
	tables := elements(doc, "table")
	if len(tables) != 1 {
		t.Fatalf("%s: %d tables, want 1", name, len(tables))
	}
	trs := elements(tables[0], "tr")
	if len(trs) != rows+1 {
		t.Errorf("%s: table of %d rows, want %d and a head", name, len(trs)-1, rows)
	}
	for i, tr := range trs {
		if n := len(elements(tr, "td")) + len(elements(tr, "th")); n != cols {
			t.Errorf("%s: table row %d has %d cells, want %d", name, i, n, cols)
		}
	}
}

func elements(n *html.Node, tag string) []*html.Node {
	var out []*html.Node
	for c := range n.Descendants() {
		if c.Type == html.ElementNode && c.Data == tag {
			out = append(out, c)
		}
	}
	return out
}

func first(ns []*html.Node) *html.Node {
	if len(ns) == 0 {
		return nil
	}
	return ns[0]
}

func textOf(n *html.Node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	for c := range n.Descendants() {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
