package draft

import (
	"slices"
	"strconv"

	"fencelab/lab"
)

// Apply makes the change a button of the editor's form asks for (an op
// value made by Op or AddOp, or a verb alone) and returns the element id
// of the control to focus on the page that shows it. Run, and anything it
// does not know, changes nothing.
func Apply(d *Draft, op string) (focus string) {
	p := parseOp(op)
	n := p.n
	switch p.verb {
	case Up, Down, Dup, Del:
		if n < 1 || n > len(d.Events) {
			return ""
		}
		return applyCardOp(d, p.verb, n)
	case Add:
		if p.kind != "" {
			d.Add.Kind = p.kind
		}
		if n < 1 || n > len(d.Events) {
			n = len(d.Events) + 1
		}
		return addEvent(d, n)
	case ActorAdd:
		d.Actors = append(d.Actors, Actor{Name: nextActor(d)})
		return ID(Name(ActorPart, len(d.Actors), "name"))
	case ActorDel:
		if n >= 1 && n <= len(d.Actors) && !slices.ContainsFunc(d.Events, func(e Event) bool { return e.Actor == d.Actors[n-1].Name }) {
			d.Actors = slices.Delete(d.Actors, n-1, n)
		}
		return string(ActorAdd)
	}
	return applyDeclaration(d, p.verb, n)
}

// applyDeclaration adds or removes a scope or resource.
func applyDeclaration(d *Draft, v Verb, n int) string {
	switch v {
	case ScopeAdd:
		d.Scopes = append(d.Scopes, Scope{Name: nextName("scope", len(d.Scopes), func(s string) bool {
			return slices.ContainsFunc(d.Scopes, func(x Scope) bool { return x.Name == s })
		})})
		return ID(Name(ScopePart, len(d.Scopes), "name"))
	case ScopeDel:
		if n >= 1 && n <= len(d.Scopes) {
			d.Scopes = slices.Delete(d.Scopes, n-1, n)
		}
		return string(ScopeAdd)
	case ResourceAdd:
		d.Resources = append(d.Resources, Resource{Fencing: true, Remember: lab.Durable,
			Name: nextName("resource", len(d.Resources), func(s string) bool {
				return slices.ContainsFunc(d.Resources, func(x Resource) bool { return x.Name == s })
			})})
		return ID(Name(ResourcePart, len(d.Resources), "name"))
	case ResourceDel:
		if n >= 1 && n <= len(d.Resources) {
			d.Resources = slices.Delete(d.Resources, n-1, n)
		}
		return string(ResourceAdd)
	}
	return ""
}

// applyCardOp moves, copies or deletes card n (1-based, in range).
func applyCardOp(d *Draft, verb Verb, n int) string {
	ev := d.Events
	switch verb {
	case Up:
		if n == 1 {
			return cardControl(1, Up)
		}
		ev[n-2], ev[n-1] = ev[n-1], ev[n-2]
		return cardControl(n-1, Up)
	case Down:
		if n == len(ev) {
			return cardControl(n, Down)
		}
		ev[n-1], ev[n] = ev[n], ev[n-1]
		return cardControl(n+1, Down)
	case Dup:
		c := ev[n-1]
		if c.Kind.Takes("id") { // a send's copy is a request of its own
			c.ID = nextSendID(d)
		}
		d.Events = slices.Insert(ev, n, c)
		return firstControl(d, n+1)
	}
	d.Events = slices.Delete(ev, n-1, n)
	switch {
	case len(d.Events) == 0:
		return "add-event"
	case n > len(d.Events):
		return cardControl(len(d.Events), Del)
	}
	return cardControl(n, Del)
}

// cardControl is the id of card n's button for verb v.
func cardControl(n int, v Verb) string { return CardID(n, string(v)) }

// firstControl is the id of card n's first field.
func firstControl(d *Draft, n int) string {
	fs := Controls(d.Events[n-1].Kind)
	f := "note"
	if len(fs) > 0 {
		f = fs[0]
	}
	return CardID(n, f)
}

// addEvent puts the palette's event at place pos (1-based) with the
// fields its kind takes, filling in what a first try needs: the first
// actor, a value, a fresh send id, the latest request. The palette keeps
// its kind and actor.
func addEvent(d *Draft, pos int) string {
	a := d.Add
	if KindFields(a.Kind) == nil || len(d.Events) >= lab.MaxEvents {
		return "add-event"
	}
	e := Event{Kind: a.Kind, Note: a.Note}
	for _, f := range Controls(a.Kind) {
		e.SetField(f, a.Field(f))
	}
	if Takes(e.Kind, "actor") && e.Actor == "" && len(d.Actors) > 0 {
		e.Actor = d.Actors[0].Name
	}
	if Takes(e.Kind, "value") && e.Value == "" {
		e.Value = "from " + e.Actor
	}
	if e.Kind.Takes("id") && e.ID == "" {
		e.ID = nextSendID(d)
	}
	if e.Kind.NamesRequest() && e.Request == "" {
		e.Request = latestRequest(d, e.Kind)
	}
	if e.Kind == lab.Restart && e.Resource == "" && e.Scope == "" && len(d.Resources) > 0 {
		e.Resource = d.Resources[0].Name
	}
	d.Events = slices.Insert(d.Events, pos-1, e)
	d.Add = Event{Kind: a.Kind, Actor: a.Actor, Scope: a.Scope, Resource: a.Resource}
	return firstControl(d, pos)
}

// nextSendID is the first of m1, m2, ... that no send uses.
func nextSendID(d *Draft) string {
	return nextName("m", 0, func(id string) bool {
		return slices.ContainsFunc(d.Events, func(e Event) bool { return e.Kind.Takes("id") && e.ID == id })
	})
}

// latestRequest is the send a new deliver (or commit) most likely means:
// the latest one not yet delivered (committed), else the latest send.
func latestRequest(d *Draft, k lab.Kind) string {
	done := map[string]bool{}
	for _, e := range d.Events {
		if e.Kind == k {
			done[e.Request] = true
		}
	}
	latest := ""
	for _, e := range slices.Backward(d.Events) {
		if !e.Kind.Takes("id") || e.ID == "" {
			continue
		}
		if !done[e.ID] {
			return e.ID
		}
		if latest == "" {
			latest = e.ID
		}
	}
	return latest
}

// nextActor is the first letter from A that no actor has.
func nextActor(d *Draft) string {
	for c := 'A'; c <= 'Z'; c++ {
		if !slices.ContainsFunc(d.Actors, func(a Actor) bool { return a.Name == string(c) }) {
			return string(c)
		}
	}
	return nextName("W", 0, func(s string) bool {
		return slices.ContainsFunc(d.Actors, func(a Actor) bool { return a.Name == s })
	})
}

// nextName is prefix followed by the first number after from that taken refuses.
func nextName(prefix string, from int, taken func(string) bool) string {
	for i := from + 1; ; i++ {
		if s := prefix + strconv.Itoa(i); !taken(s) {
			return s
		}
	}
}
