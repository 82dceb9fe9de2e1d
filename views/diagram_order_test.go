package views

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"fencelab/lab"
)

// TestDiagramInOrder: the editor's actor list decides the lanes' order
// and colours, so a drag that changes who acts first repaints nothing.
func TestDiagramInOrder(t *testing.T) {
	s := builtin(t, "paused-worker")
	tr := lab.Replay(s)
	lanes := func(order []string) (first, second int) {
		var b bytes.Buffer
		if err := DiagramInOrder(s, tr, lab.Fenced, order).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		return strings.Index(out, ">A</text>"), strings.Index(out, ">B</text>")
	}
	if a, b := lanes(nil); a < 0 || b < 0 || a > b {
		t.Errorf("DiagramInOrder(paused-worker, nil): A's lane label at %d, B's at %d; want A first", a, b)
	}
	if a, b := lanes([]string{"B", "A"}); a < 0 || b < 0 || b > a {
		t.Errorf("DiagramInOrder(paused-worker, [B A]): A's lane label at %d, B's at %d; want B first", a, b)
	}
}
