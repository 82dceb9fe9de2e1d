package draft

import (
	"strconv"
	"strings"
)

// The editor's form names each control part.N.field: title, description,
// scope.N.name, .first_token and .remember, resource.N.name, .fencing,
// .remember, .keys and .tokens, actor.N.name and .was, ev.N.kind and one
// ev.N.FIELD per control of the kind (Controls: a restart's is
// ev.N.restarts), add.FIELD for the palette, op for the button pressed and
// p for the policies compared. N counts from 1; for events it is the step
// number, as in the engine's errors. A control's element id is its name
// with dashes for dots (ev-3-value), and the ids of a card's own parts
// follow the same pattern (ev-3, ev-3-handle, ev-3-up).

// Parts of the form that are numbered lists.
const (
	ScopePart    = "scope"
	ResourcePart = "resource"
	ActorPart    = "actor"
	EventPart    = "ev"
	addPart      = "add"
)

// Name is the one place the form's names are made: the control for field
// of the n-th item of part ("ev", 3, "value" is "ev.3.value"). With field
// "" it is the item's own name ("ev.3"), the prefix of its controls.
func Name(part string, n int, field string) string {
	return name(part, strconv.Itoa(n), field)
}

func name(part, n, field string) string {
	if field == "" {
		return part + "." + n
	}
	return part + "." + n + "." + field
}

// EventName is the control for field of the card at step n.
func EventName(n int, field string) string { return Name(EventPart, n, field) }

// AddName is the palette's control for field.
func AddName(field string) string { return addPart + "." + field }

// ID is the element id of the control or part named n: dots become dashes.
func ID(n string) string { return strings.ReplaceAll(n, ".", "-") }

// CardID is the element id of card n, or of its part ("handle", "title",
// "up", ...) when part is not "".
func CardID(n int, part string) string { return ID(EventName(n, part)) }

// The templates of EventName, of its element id and of CardID(n, ""),
// with "{n}" for the step and "{field}" for the field, for the editor's
// script, which renumbers the cards after a move without knowing the
// scheme: a card's names and ids start with the template's text before
// "{field}".
var (
	EventNameTemplate = name(EventPart, "{n}", "{field}")
	EventIDTemplate   = ID(EventNameTemplate)
	CardIDTemplate    = ID(name(EventPart, "{n}", ""))
)
