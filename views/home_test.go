package views_test

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"fencelab/lab"
	"fencelab/scenarios"
	"fencelab/views"
	"fencelab/views/htmltest"
	"fencelab/views/paths"
)

// TestHomeThreads renders the front page over the built-in library and
// checks that it lists a heading per thread, in the order of lab.Threads,
// each over a list of its built-ins, and every built-in once, numbered
// down the page.
func TestHomeThreads(t *testing.T) {
	lib, err := lab.LoadLibrary(scenarios.FS, scenarios.Order())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := views.Home(views.HomePage{Builtins: lib.List}).Render(t.Context(), &b); err != nil {
		t.Fatalf("Home(...).Render: %v", err)
	}
	page := b.String()
	var headings []string
	for _, m := range regexp.MustCompile(`<h3 id="thread-[^"]*">([^<]*)</h3>`).FindAllStringSubmatch(page, -1) {
		headings = append(headings, m[1])
	}
	var want []string
	for _, th := range lab.Threads() {
		want = append(want, th.Title)
	}
	if !slices.Equal(headings, want) {
		t.Errorf("Home's thread headings = %q, want %q", headings, want)
	}
	if n := strings.Count(page, `<ul class="gallery">`); n != len(want) {
		t.Errorf("Home has %d card lists, want one per thread (%d)", n, len(want))
	}
	for _, bi := range lib.List {
		if n := strings.Count(page, `<h4><a href="`+string(paths.ScenarioPath(bi.Name))+`">`); n != 1 {
			t.Errorf("Home lists %s %d times, want once", bi.Name, n)
		}
	}
	nums := regexp.MustCompile(`<p class="card-no">(\d+)</p>`).FindAllStringSubmatch(page, -1)
	for i, m := range nums {
		if got, want := m[1], fmt.Sprintf("%02d", i+1); got != want {
			t.Errorf("Home's card %d is numbered %s, want %s", i+1, got, want)
		}
	}
	if len(nums) != len(lib.List) {
		t.Errorf("Home numbers %d cards, want %d", len(nums), len(lib.List))
	}
}

// TestShelvesKeepStrays: a built-in that no thread names is listed last,
// under "More scenarios", not dropped, and numbered after the others.
func TestShelvesKeepStrays(t *testing.T) {
	first := lab.Threads()[0]
	builtins := []lab.Builtin{
		{Name: "stray", Scenario: &lab.Scenario{Title: "A stray"}},
		{Name: first.Names[0], Scenario: &lab.Scenario{Title: "The first"}},
	}
	root := render(t, "Home([stray, "+first.Names[0]+"])", views.Home(views.HomePage{Builtins: builtins}))
	var got []string
	for _, th := range htmltest.FindAll(root, tagClass("section", "thread")) {
		var titles []string
		for _, card := range htmltest.FindAll(th, tagClass("li", "card")) {
			titles = append(titles, htmltest.Text(htmltest.Find(card, tagClass("p", "card-no")))+" "+htmltest.Text(htmltest.Find(card, func(n *html.Node) bool { return n.Data == "h4" })))
		}
		got = append(got, htmltest.Text(htmltest.Find(th, func(n *html.Node) bool { return n.Data == "h3" }))+": "+strings.Join(titles, ", "))
	}
	want := []string{first.Title + ": 01 The first", "More scenarios: 02 A stray"}
	if !slices.Equal(got, want) {
		t.Errorf("Home([stray, %s]) threads = %q, want %q", first.Names[0], got, want)
	}
}
