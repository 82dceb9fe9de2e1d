package draft

import "strings"

// Restarts is the form field of a restart's one choice of what restarts:
// a resource (a receiver) or a scope (a lease service). A choice between
// two fields would let a person give both or neither; one select says
// "exactly one" by its shape. Its values are made by Restarting.
const Restarts = "restarts"

// restartSep separates the field from the name in a Restarts value.
// Names are letters, digits, _ and -, so it cannot occur in one.
const restartSep = ":"

// Restarting is the Restarts value that names the resource or scope
// (field "resource" or "scope") called name.
func Restarting(field, name string) string { return field + restartSep + name }

// restarts is the event's Restarts value. A restart that names both a
// resource and a scope (pasted, or from an older form) keeps both, joined
// by a space, so that the engine's error lands on the one control.
func (e *Event) restarts() string {
	var parts []string
	if e.Resource != "" {
		parts = append(parts, Restarting("resource", e.Resource))
	}
	if e.Scope != "" {
		parts = append(parts, Restarting("scope", e.Scope))
	}
	return strings.Join(parts, " ")
}

// setRestarts sets the resource and scope a Restarts value names; the
// empty value names neither.
func (e *Event) setRestarts(v string) {
	e.Resource, e.Scope = "", ""
	for _, part := range strings.Fields(v) {
		field, name, _ := strings.Cut(part, restartSep)
		switch field {
		case "resource":
			e.Resource = name
		case "scope":
			e.Scope = name
		}
	}
}
