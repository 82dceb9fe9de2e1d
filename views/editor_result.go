package views

import (
	"strings"

	"github.com/a-h/templ"

	"fencelab/lab"
	"fencelab/lab/draft"
)

// EditorPage is the timeline editor with the result of its last replay.
type EditorPage struct {
	Draft  draft.Draft
	Result EditorResult
	Focus  string // id of the control to focus after a form post
}

// EditorResult is what the editor shows beside the timeline: the replay of
// a valid draft, or the engine's validation errors placed on the controls
// they name.
type EditorResult struct {
	Report *Report // nil when the draft is not valid
	Errors []draft.Mark
}

// NewEditorResult replays nothing: it wraps the report of a replayed
// draft, keeping the actors' colours in the order of the draft's actor
// list, so that a reordering does not repaint them.
func NewEditorResult(d *draft.Draft, r *Report) EditorResult {
	order := map[string]int{}
	for _, a := range d.Actors {
		if _, ok := order[a.Name]; !ok {
			order[a.Name] = len(order)
		}
	}
	for _, a := range r.actorList {
		if _, ok := order[a]; !ok {
			order[a] = len(order)
		}
	}
	r.actors = order
	return EditorResult{Report: r}
}

// InvalidEditorResult places each of the engine's errors where the mistake was.
func InvalidEditorResult(d *draft.Draft, errs []lab.FieldError) EditorResult {
	return EditorResult{Errors: draft.Place(d, errs)}
}

// errorsFor are the messages placed on control n.
func (r *EditorResult) errorsFor(n string) []string {
	var out []string
	for _, e := range r.Errors {
		if e.Control == n {
			out = append(out, e.Message)
		}
	}
	return out
}

// cardErrors are the messages on card i that no control of it shows.
func (r *EditorResult) cardErrors(i int) []lab.FieldError {
	var out []lab.FieldError
	for _, e := range r.Errors {
		if e.Card == i && e.Control == "" {
			out = append(out, e.FieldError)
		}
	}
	return out
}

// hasCardErrors reports whether card i has any error.
func (r *EditorResult) hasCardErrors(i int) bool {
	for _, e := range r.Errors {
		if e.Card == i {
			return true
		}
	}
	return false
}

// warning is step i's warning (why it was skipped), if the draft ran.
func (r *EditorResult) warning(i int) string {
	if r.Report == nil || i < 1 || i > len(r.Report.Trace.Steps) {
		return ""
	}
	return r.Report.Trace.Steps[i-1].Warning
}

// invalidAttrs marks control n invalid and points it at its messages.
func invalidAttrs(r EditorResult, n string) templ.Attributes {
	if len(r.errorsFor(n)) == 0 {
		return nil
	}
	return templ.Attributes{"aria-invalid": "true", "aria-describedby": draft.ID(n) + "-err"}
}

// focusAttr puts autofocus on the control a form post asked to focus.
func focusAttr(focus, n string) templ.Attributes {
	if focus == "" || focus != draft.ID(n) {
		return nil
	}
	return templ.Attributes{"autofocus": true}
}

// cardID is the element id of card n; "" for none (0).
func cardID(n int) string {
	if n < 1 {
		return ""
	}
	return draft.CardID(n, "")
}

// resultSummary is one line for screen readers after each replay: how
// each compared policy ends.
func resultSummary(r EditorResult) string {
	if len(r.Errors) > 0 {
		return "Not run: " + plural(len(r.Errors), "problem") + " marked on the cards."
	}
	if r.Report == nil || len(r.Report.Trace.Steps) == 0 {
		return "Nothing to replay yet."
	}
	var parts []string
	for _, p := range r.Report.Policies {
		s := r.Report.Trace.Summary[p]
		for _, res := range r.Report.resources {
			v := "empty"
			if x := s.Final[res]; x != nil {
				v = *x
			}
			parts = append(parts, string(p)+": "+res+" ends as "+v)
		}
		if n := len(s.Violations); n > 0 {
			parts[len(parts)-1] += ", " + verdictWords(worstOf(s.Violations), n)
		}
	}
	return "Replayed. " + strings.Join(parts, "; ") + "."
}
