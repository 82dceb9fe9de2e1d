package views

import (
	"slices"
	"strings"

	"fencelab/lab"
	"fencelab/lab/draft"
)

// The choices of model 3's controls: a restart's one choice of what
// restarts, the flags, and the options of the scopes and resources.

// choice is one option of a select: the value posted and its words.
type choice struct{ Value, Label string }

// restartChoices lists what a restart can name: each resource, then each
// scope, and the event's own choice if it is none of them (undeclared, or
// both from a pasted file), so the engine's error shows on what was said.
func restartChoices(d *draft.Draft, current string) []choice {
	var out []choice
	for _, r := range d.Resources {
		out = append(out, choice{draft.Restarting("resource", r.Name), "resource " + r.Name + " (a receiver)"})
	}
	for _, s := range d.Scopes {
		out = append(out, choice{draft.Restarting("scope", s.Name), "scope " + s.Name + " (its lease service)"})
	}
	if current != "" && !slices.ContainsFunc(out, func(c choice) bool { return c.Value == current }) {
		out = append(out, choice{current, restartLabel(current)})
	}
	return out
}

// restartLabel says what a Restarts value names: "scope s", or "resource
// r and scope s" for a pasted restart that names both.
func restartLabel(v string) string {
	var e draft.Event
	e.SetField(draft.Restarts, v)
	var parts []string
	if e.Resource != "" {
		parts = append(parts, "resource "+e.Resource)
	}
	if e.Scope != "" {
		parts = append(parts, "scope "+e.Scope)
	}
	return strings.Join(parts, " and ")
}

// withChoice adds v to choices when no choice has it, so that a select
// shows what was posted.
func withChoice(choices []choice, v string) []choice {
	if slices.ContainsFunc(choices, func(c choice) bool { return c.Value == v }) {
		return choices
	}
	return append(choices, choice{v, v})
}

// paletteRestarts is what the palette's restart choice shows: the
// palette's resource or scope while its kind is restart, else the default.
func paletteRestarts(a draft.Event) string {
	if a.Kind != lab.Restart {
		return ""
	}
	return a.Field(draft.Restarts)
}

// firstResource is the palette's default of what restarts: the first
// resource, as Add puts it.
func firstResource(d *draft.Draft) string {
	if len(d.Resources) == 0 {
		return "choose what restarts"
	}
	return "resource " + d.Resources[0].Name + " (the first)"
}

// isFlag reports whether field f is true or left out: a checkbox.
func isFlag(f string) bool { return f == "split" || f == "rmw" }

// flagHint says what checking flag f means.
func flagHint(f string) string {
	if f == "split" {
		return "granted while another actor holds it (split brain)"
	}
	return "computed from its read (read-modify-write)"
}

// keptOption is the value of a select's default option: the default as
// the draft spells it ("" when left out, the word when a file said it), so
// that a form round trip leaves the scenario as it was.
func keptOption[T ~string](current, def T) string {
	if current == def {
		return string(def)
	}
	return ""
}
