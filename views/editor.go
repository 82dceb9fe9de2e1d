package views

import (
	"slices"

	"fencelab/lab"
)

// Draft is the timeline editor's state: what its form holds, in the
// words a person typed. The server turns it into a scenario for lab.Parse,
// so validation is the engine's own; nothing typed is dropped on the way.
type Draft struct {
	From        string // where it started: "" (blank), a built-in's name, or "r/ID"
	Title       string
	Description string
	Scopes      []DraftScope
	Resources   []DraftResource
	Actors      []DraftActor
	Events      []DraftEvent
	Add         DraftEvent   // the palette's choice for the next event
	Policies    []lab.Policy // the policies compared, in the order of lab.Policies
}

// DraftScope is one declared lease scope.
type DraftScope struct {
	Name       string
	FirstToken string // as typed; empty means 1
}

// DraftResource is one declared receiver.
type DraftResource struct {
	Name     string
	Fencing  bool
	Remember lab.Remember
}

// DraftActor is one worker of the palette. Was is its name when the page
// was rendered, so that a rename carries over to its events.
type DraftActor struct {
	Name, Was string
}

// DraftEvent is one card of the timeline. Every field is text as typed:
// Token is empty for the default token and "null" for none.
type DraftEvent struct {
	Kind                                                        lab.Kind
	Actor, Scope, Resource, Value, ID, Request, Op, Token, Note string
}

// EventField names a field of DraftEvent as the scenario file does.
func (e *DraftEvent) EventField(name string) string {
	switch name {
	case "actor":
		return e.Actor
	case "scope":
		return e.Scope
	case "resource":
		return e.Resource
	case "value":
		return e.Value
	case "id":
		return e.ID
	case "request":
		return e.Request
	case "op":
		return e.Op
	case "token":
		return e.Token
	case "note":
		return e.Note
	}
	return ""
}

// SetEventField sets the field called name; unknown names are ignored.
func (e *DraftEvent) SetEventField(name, v string) {
	switch name {
	case "actor":
		e.Actor = v
	case "scope":
		e.Scope = v
	case "resource":
		e.Resource = v
	case "value":
		e.Value = v
	case "id":
		e.ID = v
	case "request":
		e.Request = v
	case "op":
		e.Op = v
	case "token":
		e.Token = v
	case "note":
		e.Note = v
	}
}

// EventFieldNames lists every field an event may have besides its kind, in
// the order the cards show them.
var EventFieldNames = []string{"actor", "scope", "resource", "value", "id", "request", "op", "token", "note"}

// KindFields lists the fields kind k takes besides kind and note; nil for
// an unknown kind.
func KindFields(k lab.Kind) []string { return lab.Fields(k) }

// Takes reports whether kind k takes field f. Every kind takes a note.
func Takes(k lab.Kind, f string) bool {
	return f == "note" || slices.Contains(lab.Fields(k), f)
}

// kindText says what each kind does, for the palette.
var kindText = map[lab.Kind]string{
	lab.Acquire: "takes the lease and its next token",
	lab.Read:    "reads the resource",
	lab.Pause:   "stops (a GC pause, a stopped VM)",
	lab.Resume:  "continues after a pause",
	lab.Expire:  "its lease times out",
	lab.Renew:   "extends a still-valid lease",
	lab.Release: "gives the lease back",
	lab.Check:   "asks whether its lease is still valid",
	lab.Write:   "sends a write that arrives at once",
	lab.Send:    "sends a write that stays in flight",
	lab.Deliver: "an in-flight request arrives",
	lab.Commit:  "the racy receiver applies a checked request",
	lab.Restart: "the receiver restarts",
	lab.Crash:   "the worker stops for good",
}
