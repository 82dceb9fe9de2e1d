// Package draft is the timeline editor's state and rules: the Draft a
// person edits, the form that carries it, the edits its buttons make, its
// conversion to and from scenarios, and where each validation error
// belongs. It imports only lab; the server decodes, operates and hands the
// result to views, which render it.
package draft

import (
	"slices"

	"fencelab/lab"
)

// Draft is the editor's state: what its form holds, in the words a person
// typed. Compile turns it into a scenario for lab.Parse, so validation is
// the engine's own; nothing typed is dropped on the way.
type Draft struct {
	From        string // where it started: "" (blank), a built-in's name, or "r/ID"
	Title       string
	Description string
	Scopes      []Scope
	Resources   []Resource
	Actors      []Actor
	Events      []Event
	Add         Event        // the palette's choice for the next event
	Policies    []lab.Policy // the policies compared, in the order of lab.Policies
}

// Scope is one declared lease scope. Remember (model 3) is empty for the
// default, durable.
type Scope struct {
	Name       string
	FirstToken string // as typed; empty means 1
	Remember   lab.Remember
}

// Resource is one declared receiver. Keys and Tokens (model 3) are empty
// for their defaults.
type Resource struct {
	Name     string
	Fencing  bool
	Remember lab.Remember
	Keys     lab.Remember
	Tokens   lab.Tokens
}

// Actor is one worker of the palette. Was is its name when the page was
// rendered, so that a rename carries over to its events.
type Actor struct {
	Name, Was string
}

// Event is one card of the timeline. Every field is text as typed: Token
// is empty for the default token and "null" for none; Split and RMW
// (model 3) are empty when left out, else "true" or "false".
type Event struct {
	Kind                                                        lab.Kind
	Actor, Scope, Resource, Value, ID, Request, Op, Token, Note string
	Split, RMW                                                  string
}

// Field is the field called name, as the scenario file names it, or the
// form's Restarts choice.
func (e *Event) Field(name string) string {
	if name == Restarts {
		return e.restarts()
	}
	if p := e.field(name); p != nil {
		return *p
	}
	return ""
}

// SetField sets the field called name, or the resource and scope a
// Restarts choice names; unknown names are ignored.
func (e *Event) SetField(name, v string) {
	if name == Restarts {
		e.setRestarts(v)
		return
	}
	if p := e.field(name); p != nil {
		*p = v
	}
}

func (e *Event) field(name string) *string {
	switch name {
	case "actor":
		return &e.Actor
	case "scope":
		return &e.Scope
	case "resource":
		return &e.Resource
	case "value":
		return &e.Value
	case "id":
		return &e.ID
	case "request":
		return &e.Request
	case "op":
		return &e.Op
	case "token":
		return &e.Token
	case "split":
		return &e.Split
	case "rmw":
		return &e.RMW
	case "note":
		return &e.Note
	}
	return nil
}

var fieldNames = []string{"actor", "scope", "resource", "value", "id", "request", "op", "token", "split", "rmw", "note"}

// FieldNames lists every field an event may have besides its kind, in the
// order the cards show them. The slice is the caller's own.
func FieldNames() []string { return slices.Clone(fieldNames) }

// KindFields lists the fields kind k takes besides kind and note; nil for
// an unknown kind.
func KindFields(k lab.Kind) []string { return lab.Fields(k) }

// Takes reports whether kind k takes field f. Every kind takes a note.
func Takes(k lab.Kind, f string) bool {
	return f == "note" || k.Takes(f)
}

// Controls lists the form controls a card of kind k has besides its kind
// and note: one per field the kind takes, but a restart's resource and
// scope are the one choice Restarts, since it takes exactly one of them
// (model 3). Nil for an unknown kind.
func Controls(k lab.Kind) []string {
	fs := lab.Fields(k)
	if k != lab.Restart {
		return fs
	}
	return []string{Restarts}
}

// HasControl reports whether a card of kind k has the control for field
// f. Every kind has a note.
func HasControl(k lab.Kind, f string) bool {
	return f == "note" || slices.Contains(Controls(k), f)
}

// DefaultTitle is the title of a draft whose title was left empty: the
// title field shows it greyed as its placeholder, so that typing starts a
// title rather than adding to this one, and a run saved untitled gets it.
const DefaultTitle = "A new timeline"

// Blank is the editor's empty page: two actors, the default scope and
// resource, no events yet.
func Blank() Draft {
	return Draft{
		Title:     "", // the field shows DefaultTitle as its placeholder
		Scopes:    []Scope{{Name: "job", FirstToken: "1"}},
		Resources: []Resource{{Name: "result", Fencing: true, Remember: lab.Durable}},
		Actors:    []Actor{{Name: "A", Was: "A"}, {Name: "B", Was: "B"}},
		Add:       Event{Kind: lab.Acquire, Actor: "A"},
	}
}

// ActorUsed reports whether an event names actor a, which may then not be
// removed.
func (d *Draft) ActorUsed(a string) bool {
	return slices.ContainsFunc(d.Events, func(e Event) bool { return e.Actor == a })
}

// SendIDs lists the ids of the draft's sends, for the request field's
// suggestions.
func (d *Draft) SendIDs() []string {
	var out []string
	for _, e := range d.Events {
		if e.Kind.Takes("id") && e.ID != "" && !slices.Contains(out, e.ID) {
			out = append(out, e.ID)
		}
	}
	return out
}
