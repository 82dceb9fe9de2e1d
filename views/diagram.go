package views

import (
	"context"
	"io"

	"github.com/a-h/templ"

	"fencelab/lab"
	"fencelab/views/diagram"
)

// reportDiagram is the diagram of a report under p: beside the logs'
// outcomes for a saved import.
func reportDiagram(r *Report, p lab.Policy) templ.Component {
	if r.Imported == nil {
		return Diagram(r.Scenario, r.Trace, p)
	}
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		return diagramWrap(p, templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
			return diagram.ImportedInline(w, r.Scenario, r.Trace, p, nil, r.Imported)
		})).Render(ctx, w)
	})
}

// inlineDiagram is the diagram package's <svg> as a component: that
// package writes plain bytes and knows no templ.
func inlineDiagram(s *lab.Scenario, t *lab.Trace, p lab.Policy, actors []string) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		return diagram.Inline(w, s, t, p, actors)
	})
}
