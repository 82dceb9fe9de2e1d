package scenarios

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
)

// TestOrderMatchesFiles checks that Order names every embedded file once and
// nothing else, so a new scenario cannot be left out of the listings.
func TestOrderMatchesFiles(t *testing.T) {
	files, err := fs.Glob(FS, "*.json")
	if err != nil {
		t.Fatalf("fs.Glob(FS, %q): %v", "*.json", err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(f, ".json"))
	}
	slices.Sort(names)
	sorted := slices.Clone(order)
	slices.Sort(sorted)
	if !slices.Equal(sorted, names) {
		t.Errorf("Order, sorted = %q, want the embedded files %q", sorted, names)
	}
	if len(order) == 0 || order[0] != "paused-worker" {
		t.Errorf("Order[0] = %q, want %q", order[0], "paused-worker")
	}
}

// TestOrderIsACopy: a caller changing what Order returned changes nothing.
func TestOrderIsACopy(t *testing.T) {
	o := Order()
	o[0] = "changed"
	if Order()[0] != "paused-worker" {
		t.Errorf("Order returns a slice its callers can change")
	}
}
