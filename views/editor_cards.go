package views

import (
	"slices"
	"strings"

	"fencelab/lab"
	"fencelab/lab/draft"
	"fencelab/views/paths"
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

// defaultLabel is the empty option of a select of field ("scope" or
// "resource") on a card of kind k: what the engine takes when the field
// is left out (model 3: a write's, send's or check's scope is the latest
// grant's, and a read reads every resource).
func defaultLabel(k lab.Kind, field string, names []string) string {
	switch {
	case len(names) == 1:
		return names[0] + " (the only " + field + ")"
	case field == "scope" && (k == lab.Write || k == lab.Send || k == lab.Check):
		return "the latest grant's scope"
	case field == "resource" && k == lab.Read:
		return "every resource"
	case k == "": // the palette, whose kind the script changes in place
		return "the kind's default"
	}
	return "choose a " + field
}

// isPrimary reports whether a card shows field f at once; the others fold
// under "more". A scope or resource is primary where there is a choice; a
// flag (split, rmw) and a read's resource (model 3) where the draft uses
// them, so that a model-2 timeline keeps its compact cards and a model-3
// one shows its lesson on every card alike.
func isPrimary(d *draft.Draft, e draft.Event, f string) bool {
	switch f {
	case "value", "id", "request", "note", draft.Restarts:
		return true
	case "scope":
		return len(d.Scopes) > 1
	case "resource":
		return len(d.Resources) > 1 || e.Kind == lab.Read && uses(d, lab.Read, f)
	case "split", "rmw":
		return uses(d, e.Kind, f)
	}
	return false
}

// uses reports whether an event of the draft like kind k (a write and a
// send are alike) sets field f.
func uses(d *draft.Draft, k lab.Kind, f string) bool {
	alike := func(x lab.Kind) bool {
		return x == k || (x == lab.Write || x == lab.Send) && (k == lab.Write || k == lab.Send)
	}
	return slices.ContainsFunc(d.Events, func(e draft.Event) bool { return alike(e.Kind) && e.Field(f) != "" })
}

// cardFields splits the fields event e takes, but the actor (in the
// card's head), into those shown at once and those folded away; the note
// comes last among the first.
func cardFields(d *draft.Draft, e draft.Event) (primary, more []string) {
	for _, f := range draft.Controls(e.Kind) {
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
	switch f {
	case "op":
		return "op key"
	case draft.Restarts:
		return "what restarts"
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
		how := ""
		if s.Remember == lab.Memory {
			how = ", forgets on restart"
		}
		parts = append(parts, "scope "+s.Name+" from token "+t+how)
	}
	for _, r := range d.Resources {
		parts = append(parts, "resource "+r.Name+" ("+resourceHow(r)+")")
	}
	if len(parts) == 0 {
		return "the defaults: scope job, resource result"
	}
	return strings.Join(parts, " · ")
}

// resourceHow says in a few words how a resource differs from the default.
func resourceHow(r draft.Resource) string {
	how := "fenced"
	if !r.Fencing {
		how = "takes no token"
	}
	if r.Tokens == lab.PerScopeTokens {
		how += ", a token per scope"
	}
	if r.Remember == lab.Memory {
		how += ", forgets its token"
	}
	if r.Keys == lab.Memory {
		how += ", forgets its keys"
	}
	return how
}

// sourceLabel says where a draft from from came from, for the breadcrumb.
func sourceLabel(from string) string {
	if from == "" {
		return "blank"
	}
	if id, ok := paths.CutRunFrom(from); ok {
		return "a copy of saved run " + id
	}
	return "a copy of " + from
}

// fromLink is the page a draft was copied from, if any.
func fromLink(from string) string { return paths.FromPage(from) }

// paletteFields are the palette's inputs besides kind and actor, each
// shown (with JavaScript) only for the kinds that take it.
var paletteFields = []string{"value", "id", "request", draft.Restarts, "scope", "resource", "op", "token", "split", "rmw", "note"}

// kindsTaking lists the kinds whose cards have a control for field f,
// for the palette.
func kindsTaking(f string) string {
	var out []string
	for _, k := range lab.Kinds() {
		if draft.HasControl(k, f) {
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
