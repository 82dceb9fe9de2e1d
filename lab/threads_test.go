package lab

import (
	"slices"
	"testing"

	"fencelab/scenarios"
)

// TestThreadsCoverLibrary checks that every built-in is in exactly one
// thread, that a thread names nothing else, and that each thread keeps the
// teaching order, so the front page loses no lesson and shows none twice.
func TestThreadsCoverLibrary(t *testing.T) {
	order := scenarios.Order()
	seen := map[string]string{}
	for _, th := range Threads() {
		if th.Title == "" || th.About == "" || len(th.Names) == 0 {
			t.Errorf("Threads() has %+v, want a title, a sentence and at least one built-in", th)
		}
		last := -1
		for _, name := range th.Names {
			i := slices.Index(order, name)
			switch {
			case i < 0:
				t.Errorf("thread %q names %q, want a built-in of scenarios.Order()", th.Title, name)
			case seen[name] != "":
				t.Errorf("built-in %q is in threads %q and %q, want exactly one", name, seen[name], th.Title)
			case i < last:
				t.Errorf("thread %q lists %q after %q, want the teaching order of scenarios.Order()", th.Title, name, order[last])
			}
			seen[name], last = th.Title, max(last, i)
		}
	}
	for _, name := range order {
		if seen[name] == "" {
			t.Errorf("built-in %q is in no thread, want exactly one", name)
		}
	}
}

// TestThreadsIsACopy: a caller changing what Threads returned changes nothing.
func TestThreadsIsACopy(t *testing.T) {
	th := Threads()
	th[0].Title, th[0].Names[0] = "changed", "changed"
	if got := Threads()[0]; got.Title == "changed" || got.Names[0] == "changed" {
		t.Errorf("Threads() returns data its callers can change: %+v", got)
	}
}
