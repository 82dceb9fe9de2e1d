package views_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/a-h/templ"
	"golang.org/x/net/html"

	"fencelab/lab"
	"fencelab/scenarios"
	"fencelab/views"
	"fencelab/views/htmltest"
)

var (
	libraryOnce sync.Once
	library     *lab.Library
	libraryErr  error
)

// builtin is the built-in scenario name and its trace.
func builtin(t *testing.T, name string) (*lab.Scenario, *lab.Trace) {
	t.Helper()
	libraryOnce.Do(func() { library, libraryErr = lab.LoadLibrary(scenarios.FS, scenarios.Order()) })
	if libraryErr != nil {
		t.Fatalf("LoadLibrary: %v", libraryErr)
	}
	b, ok := library.Get(name)
	if !ok {
		t.Fatalf("no built-in %q", name)
	}
	return b.Scenario, lab.Replay(b.Scenario)
}

// render renders c and parses it as a browser would, to assert what a
// reader sees rather than how the markup is spelled.
func render(t *testing.T, call string, c templ.Component) *html.Node {
	t.Helper()
	var b bytes.Buffer
	if err := c.Render(t.Context(), &b); err != nil {
		t.Fatalf("%s.Render: %v", call, err)
	}
	root, err := html.Parse(&b)
	if err != nil {
		t.Fatalf("%s: html.Parse: %v", call, err)
	}
	return root
}

// byID matches the element of that id.
func byID(id string) func(*html.Node) bool {
	return func(n *html.Node) bool { return htmltest.Attr(n, "id") == id }
}

// tagClass matches the elements of that tag and class.
func tagClass(tag, class string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == tag && htmltest.HasClass(n, class) }
}

// rawText is the text content of n as written, no-break spaces included.
func rawText(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(rawText(c))
	}
	return b.String()
}

// newReport is the report of tr under ps with the engine's facts, as the
// server's page builders make it.
func newReport(sc *lab.Scenario, tr *lab.Trace, ps []lab.Policy) *views.Report {
	f := views.Facts{Resources: lab.ResourceNames(sc, tr), Fresh: map[lab.Policy]map[int]lab.Freshness{}}
	for _, p := range ps {
		f.Fresh[p] = lab.RMWFreshness(tr, p)
	}
	return views.NewReport(sc, tr, ps, f)
}
