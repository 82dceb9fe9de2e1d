package views

import (
	"slices"
	"strings"

	"fencelab/lab"
	"fencelab/lab/draft"
)

// actorClass colours an actor by its place in the draft's actor list.
func actorClass(d *draft.Draft, name string) string {
	for i, a := range d.Actors {
		if a.Name == name {
			return "actor actor-" + itoa(i%8)
		}
	}
	return "actor actor-none"
}

// actorNames lists the actors the card's select offers: the draft's, and
// the event's own if it is not among them.
func actorNames(d *draft.Draft, current string) []string {
	var out []string
	for _, a := range d.Actors {
		if a.Name != "" && !slices.Contains(out, a.Name) {
			out = append(out, a.Name)
		}
	}
	if current != "" && !slices.Contains(out, current) {
		out = append(out, current)
	}
	return out
}

// draftScopeNames and draftResourceNames list the declared names for a select,
// with the event's own if it is not declared (the engine will say so).
func draftScopeNames(d *draft.Draft, current string) []string {
	var out []string
	for _, s := range d.Scopes {
		out = append(out, s.Name)
	}
	return withCurrent(out, current)
}

func draftResourceNames(d *draft.Draft, current string) []string {
	var out []string
	for _, r := range d.Resources {
		out = append(out, r.Name)
	}
	return withCurrent(out, current)
}

func withCurrent(names []string, current string) []string {
	if current != "" && !slices.Contains(names, current) {
		names = append(names, current)
	}
	return names
}

// defaultLabel is the empty option of a scope or resource select.
func defaultLabel(names []string, what string) string {
	if len(names) == 1 {
		return names[0] + " (the only " + what + ")"
	}
	return "choose a " + what
}

// isPrimary reports whether a card shows field f at once; the others fold
// under "more". A scope or resource is primary where there is a choice.
func isPrimary(d *draft.Draft, e draft.Event, f string) bool {
	switch f {
	case "value", "id", "request", "note":
		return true
	case "scope":
		return len(d.Scopes) > 1
	case "resource":
		return e.Kind == lab.Restart || len(d.Resources) > 1
	}
	return false
}

// cardFields splits the fields event e takes, but the actor (in the
// card's head), into those shown at once and those folded away; the note
// comes last among the first.
func cardFields(d *draft.Draft, e draft.Event) (primary, more []string) {
	for _, f := range lab.Fields(e.Kind) {
		if f == "actor" {
			continue
		}
		if isPrimary(d, e, f) {
			primary = append(primary, f)
		} else {
			more = append(more, f)
		}
	}
	return append(primary, "note"), more
}

// openMore reports whether a card's folded fields should start unfolded:
// one of them says something, or is wrong.
func (p *EditorPage) openMore(i int, e draft.Event, more []string) bool {
	for _, f := range more {
		if e.Field(f) != "" || len(p.Result.errorsFor(draft.EventName(i, f))) > 0 {
			return true
		}
	}
	return false
}

// cardTitle names a card for screen readers and the move announcements.
func cardTitle(e draft.Event) string {
	if e.Actor != "" {
		return e.Actor + " " + string(e.Kind)
	}
	return string(e.Kind)
}

// fieldLabel is a field's label on a card.
func fieldLabel(f string) string {
	if f == "op" {
		return "op key"
	}
	return f
}

// fieldHint is the placeholder of a text field.
func fieldHint(f string) string {
	switch f {
	case "token":
		return "default; null = none"
	case "note":
		return "a note shown beside the step"
	case "op":
		return "none"
	case "value":
		return "e.g. new-result"
	case "id":
		return "e.g. m1"
	case "request":
		return "a send's id"
	}
	return ""
}

// openAdvanced reports whether the scopes and resources start unfolded:
// they differ from the defaults, or something there is wrong.
func (p *EditorPage) openAdvanced() bool {
	for _, e := range p.Result.Errors {
		if strings.HasPrefix(e.Control, "scope.") || strings.HasPrefix(e.Control, "resource.") ||
			strings.HasPrefix(e.Field, "scopes") || strings.HasPrefix(e.Field, "resources") {
			return true
		}
	}
	return false
}

// advancedSummary says the scopes and resources in one line.
func advancedSummary(d *draft.Draft) string {
	var parts []string
	for _, s := range d.Scopes {
		t := s.FirstToken
		if t == "" {
			t = "1"
		}
		parts = append(parts, "scope "+s.Name+" from token "+t)
	}
	for _, r := range d.Resources {
		how := "fenced"
		if !r.Fencing {
			how = "takes no token"
		}
		if r.Remember == lab.Memory {
			how += ", forgets on restart"
		}
		parts = append(parts, "resource "+r.Name+" ("+how+")")
	}
	if len(parts) == 0 {
		return "the defaults: scope job, resource result"
	}
	return strings.Join(parts, " · ")
}

// sourceLabel says where a draft from from came from, for the breadcrumb.
func sourceLabel(from string) string {
	switch {
	case from == "":
		return "blank"
	case strings.HasPrefix(from, "r/"):
		return "a copy of saved run " + strings.TrimPrefix(from, "r/")
	}
	return "a copy of " + from
}

// fromLink is the page a draft was copied from, if any.
func fromLink(from string) string {
	switch {
	case from == "":
		return ""
	}
	if id, ok := CutRunFrom(from); ok {
		return RunPath(id)
	}
	return ScenarioPath(from)
}

// paletteFields are the palette's inputs besides kind and actor, each
// shown (with JavaScript) only for the kinds that take it.
var paletteFields = []string{"value", "id", "request", "scope", "resource", "op", "token", "note"}

// kindsTaking lists the kinds that take field f, for the palette.
func kindsTaking(f string) string {
	var out []string
	for _, k := range lab.Kinds() {
		if draft.Takes(k, f) {
			out = append(out, string(k))
		}
	}
	if len(out) == len(lab.Kinds()) {
		return "all"
	}
	return strings.Join(out, " ")
}

// paletteHint is the placeholder of a palette input.
func paletteHint(f string) string {
	switch f {
	case "value":
		return "e.g. new-result"
	case "id":
		return "next free, e.g. m1"
	case "request":
		return "the latest send"
	}
	return fieldHint(f)
}

// joinWords lists field names as "scope, token".
func joinWords(ws []string) string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = fieldLabel(w)
	}
	return strings.Join(out, ", ")
}

// actorTone is the class that colours a card's edge by its actor.
func actorTone(d *draft.Draft, name string) string {
	for i, a := range d.Actors {
		if a.Name == name {
			return "tone-" + itoa(i%8)
		}
	}
	return "tone-none"
}
