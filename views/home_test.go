package views

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"

	"fencelab/lab"
	"fencelab/scenarios"
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
	if err := Home(HomePage{Builtins: lib.List}).Render(t.Context(), &b); err != nil {
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
		if n := strings.Count(page, `<h4><a href="`+string(ScenarioPath(bi.Name))+`">`); n != 1 {
			t.Errorf("Home lists %s %d times, want once", bi.Name, n)
		}
	}
	nums := regexp.MustCompile(`<p class="card-no">(\d+)</p>`).FindAllStringSubmatch(page, -1)
	for i, m := range nums {
		if got, want := m[1], twoDigits(i+1); got != want {
			t.Errorf("Home's card %d is numbered %s, want %s", i+1, got, want)
		}
	}
	if len(nums) != len(lib.List) {
		t.Errorf("Home numbers %d cards, want %d", len(nums), len(lib.List))
	}
}

// TestShelvesKeepStrays: a built-in that no thread names is listed last,
// under "More scenarios", not dropped.
func TestShelvesKeepStrays(t *testing.T) {
	first := lab.Threads()[0].Names[0]
	got := shelves([]lab.Builtin{{Name: "stray"}, {Name: first}})
	if len(got) != 2 || got[0].Builtins[0].Name != first || got[1].Title != "More scenarios" ||
		got[1].Builtins[0].Name != "stray" || got[1].First != 2 {
		t.Errorf("shelves([stray, %s]) = %+v, want %s's thread, then stray under More scenarios numbered from 2", first, got, first)
	}
}
