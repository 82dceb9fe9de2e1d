package scenarios

import (
	"encoding/json"
	"io/fs"
	"slices"
	"strings"
	"testing"
)

// TestOrderMatchesFiles checks that Order names every embedded file once and
// nothing else, so a new scenario cannot be left out of the listings.
func TestOrderMatchesFiles(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	o := Order()
	o[0] = "changed"
	if Order()[0] != "paused-worker" {
		t.Errorf("Order returns a slice its callers can change")
	}
}

// TestEveryOrderingParagraph checks that every built-in ends its
// description with the paragraph that says what exploring every ordering
// shows, which the scenario's page sets apart and links to the explorer.
func TestEveryOrderingParagraph(t *testing.T) {
	t.Parallel()
	for _, name := range Order() {
		b, err := fs.ReadFile(FS, name+".json")
		if err != nil {
			t.Fatalf("read %s.json: %v", name, err)
		}
		var s struct{ Description string }
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("decode %s.json: %v", name, err)
		}
		paras := strings.Split(s.Description, "\n\n")
		if last := paras[len(paras)-1]; !strings.HasPrefix(last, "Every ordering: ") {
			t.Errorf("%s: the description's last paragraph is %.40q…, want one that begins %q", name, last, "Every ordering: ")
		}
	}
}
