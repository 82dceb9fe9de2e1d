package views_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"fencelab/lab"
	"fencelab/scenarios"
	"fencelab/views"
	"fencelab/views/diagram"
)

// TestDiagramWrapsInline: the page's component is diagram.Inline's bytes
// in a scrolling region labelled by the diagram's title, for every policy
// and for an unknown one (drawn as the first policy).
func TestDiagramWrapsInline(t *testing.T) {
	t.Parallel()
	lib, err := lab.LoadLibrary(scenarios.FS, scenarios.Order())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := lib.Get("paused-worker")
	s, tr := b.Scenario, lab.Replay(b.Scenario)
	for _, p := range append(lab.Policies(), "nosuch") {
		var page, svg bytes.Buffer
		if err := views.DiagramInOrder(s, tr, p, []string{"B"}).Render(context.Background(), &page); err != nil {
			t.Fatalf("DiagramInOrder(paused-worker, %s): %v", p, err)
		}
		if err := diagram.Inline(&svg, s, tr, p, []string{"B"}); err != nil {
			t.Fatalf("diagram.Inline(paused-worker, %s): %v", p, err)
		}
		want := `<div class="diagram-wrap" role="region" aria-labelledby="` + diagram.TitleID(p) + `" tabindex="0">` + svg.String() + "</div>"
		if got := page.String(); got != want {
			t.Errorf("DiagramInOrder(paused-worker, %s) = %.120q…, want %.120q…", p, got, want)
		}
		if id := `id="` + diagram.TitleID(p) + `"`; !strings.Contains(svg.String(), id) {
			t.Errorf("diagram.Inline(paused-worker, %s) has no element with %s", p, id)
		}
	}
}
