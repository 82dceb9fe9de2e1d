package diagram

import (
	"bytes"
	"strings"
	"testing"

	"fencelab/lab"
)

// TestInlineOrder: the editor's actor list decides the lanes' order
// and colours, so a drag that changes who acts first repaints nothing.
func TestInlineOrder(t *testing.T) {
	t.Parallel()
	s := builtin(t, "paused-worker")
	tr := lab.Replay(s)
	lanes := func(order []string) (first, second int) {
		var b bytes.Buffer
		if err := Inline(&b, s, tr, lab.Fenced, order); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		return strings.Index(out, ">A</text>"), strings.Index(out, ">B</text>")
	}
	if a, b := lanes(nil); a < 0 || b < 0 || a > b {
		t.Errorf("Inline(paused-worker, nil): A's lane label at %d, B's at %d; want A first", a, b)
	}
	if a, b := lanes([]string{"B", "A"}); a < 0 || b < 0 || b > a {
		t.Errorf("Inline(paused-worker, [B A]): A's lane label at %d, B's at %d; want B first", a, b)
	}
}
