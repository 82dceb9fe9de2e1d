package views

import (
	"context"
	"io"

	"github.com/a-h/templ"

	"fencelab/lab"
	"fencelab/views/diagram"
)

// inlineDiagram is the diagram package's <svg> as a component: that
// package writes plain bytes and knows no templ.
func inlineDiagram(s *lab.Scenario, t *lab.Trace, p lab.Policy, actors []string) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		return diagram.Inline(w, s, t, p, actors)
	})
}
