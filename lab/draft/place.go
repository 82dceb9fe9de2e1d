package draft

import (
	"strings"

	"fencelab/lab"
)

// Mark is one validation error placed where the mistake was: on the form
// control it belongs to (Control, a form name like "ev.3.request" or
// "scope.1.first_token"; "" when no control shows it) and on the card it
// belongs to (Card, a step; 0 for none).
type Mark struct {
	lab.FieldError
	Control string
	Card    int
}

// Anchor is the element id an error's link in the list leads to: its
// control, else its card, else the editor.
func (m Mark) Anchor() string {
	switch {
	case m.Control != "":
		return ID(m.Control)
	case m.Card > 0:
		return CardID(m.Card, "")
	}
	return "editor"
}

// Place puts each of the engine's errors where the mistake was. An actor's
// name that is not a name is one mistake, however many events it acts in:
// it is marked once, on the actor's own field, not on each of its cards.
func Place(d *Draft, errs []lab.FieldError) []Mark {
	out := make([]Mark, 0, len(errs))
	seen := map[string]bool{}
	for _, fe := range errs {
		if k, ok := d.actorNameError(fe); ok {
			if !seen[d.Actors[k].Name] {
				seen[d.Actors[k].Name] = true
				out = append(out, Mark{FieldError: lab.FieldError{Field: "actor", Message: fe.Message}, Control: Name(ActorPart, k+1, "name")})
			}
			continue
		}
		out = append(out, d.place(fe))
	}
	return out
}

// actorNameError reports whether fe is about the name of one of the
// draft's actors, and which. The engine's only error on an event's actor
// that names one is that the name is not a name.
func (d *Draft) actorNameError(fe lab.FieldError) (int, bool) {
	if fe.Field != "actor" || fe.Index < 1 || fe.Index > len(d.Events) {
		return 0, false
	}
	name := d.Events[fe.Index-1].Actor
	for k, a := range d.Actors {
		if name != "" && a.Name == name {
			return k, true
		}
	}
	return 0, false
}

// place finds the form control an engine error names.
func (d *Draft) place(fe lab.FieldError) Mark {
	m := Mark{FieldError: fe}
	if fe.Index > 0 {
		m.Card = fe.Index
		if fe.Index <= len(d.Events) {
			if c := control(d.Events[fe.Index-1].Kind, fe.Field); c != "" {
				m.Control = EventName(fe.Index, c)
			}
		}
		return m
	}
	switch {
	case fe.Field == "title" || fe.Field == "description":
		m.Control = fe.Field
	case strings.HasPrefix(fe.Field, "scopes."):
		name, sub := splitDeclared(strings.TrimPrefix(fe.Field, "scopes."))
		for i, sc := range d.Scopes {
			if sc.Name == name {
				m.Control = Name(ScopePart, i+1, sub)
				break
			}
		}
	case strings.HasPrefix(fe.Field, "resources."):
		name, sub := splitDeclared(strings.TrimPrefix(fe.Field, "resources."))
		for i, r := range d.Resources {
			if r.Name == name {
				m.Control = Name(ResourcePart, i+1, sub)
				break
			}
		}
	}
	return m
}

// control is the card control of kind k that shows field f: the field's
// own, a restart's Restarts choice for its resource and scope, or "" when
// the card has none (a pasted field the kind does not take).
func control(k lab.Kind, f string) string {
	switch {
	case k == lab.Restart && (f == "resource" || f == "scope"):
		return Restarts
	case HasControl(k, f):
		return f
	}
	return ""
}

// splitDeclared splits "job.first_token" into the name and the field; a
// bare name ("job") names the name itself.
func splitDeclared(s string) (name, sub string) {
	for _, f := range []string{".first_token", ".fencing", ".remember", ".keys", ".tokens"} {
		if strings.HasSuffix(s, f) {
			return strings.TrimSuffix(s, f), f[1:]
		}
	}
	return s, "name"
}
