package diagram

import (
	"strings"
	"testing"

	"fencelab/lab"
)

// TestLongActorNamesFit: actor names at the model's limit of 16
// characters are drawn whole in their pills, and no pill reaches into the
// next lane's, in the SVG and the PNG (one layout draws both).
func TestLongActorNamesFit(t *testing.T) {
	t.Parallel()
	sc := *builtin(t, "split-brain")
	names := map[string]string{}
	long := []string{"reconciler-0042x", "worker-1", "scheduler-leader"}
	sc.Events = append([]lab.Event(nil), sc.Events...)
	for i, e := range sc.Events {
		if e.Actor == "" {
			continue
		}
		if _, ok := names[e.Actor]; !ok {
			names[e.Actor] = long[len(names)%len(long)]
		}
		sc.Events[i].Actor = names[e.Actor]
	}
	for _, n := range long[:len(names)] {
		if len(n) > 16 {
			t.Fatalf("%q is over the model's limit", n)
		}
	}
	d := layoutDiagram(&sc, lab.Replay(&sc), lab.Fenced, true, nil)
	var pills []shape
	var texts []string
	for _, s := range d.header {
		if s.kind == shRect && s.r == 11 {
			pills = append(pills, s)
		}
		if s.kind == shText {
			texts = append(texts, s.text)
		}
	}
	for _, n := range long[:len(names)] {
		found := false
		for _, txt := range texts {
			found = found || txt == n
		}
		if !found {
			t.Errorf("the header lacks %q whole: %q", n, texts)
		}
	}
	for i := 1; i < len(pills); i++ {
		if a, b := pills[i-1], pills[i]; a.x1+a.x2 > b.x1 {
			t.Errorf("the pills of lanes %d and %d overlap: %d+%d > %d", i, i+1, a.x1, a.x2, b.x1)
		}
	}
	if strings.Contains(strings.Join(texts, " "), "…") {
		t.Errorf("a header label is cut short: %q", texts)
	}
}
