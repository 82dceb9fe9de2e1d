package lab

import "strconv"

// Freshness is what an rmw request knew of its resource when it was
// decided (model 3), for a picture that says "stale: read v0, now v1".
type Freshness struct {
	Stale bool   // another actor's write landed since the writer's read
	By    string // the actor whose write made it stale; "" when fresh
	Read  bool   // the writer read the resource before sending
	Known int    // the version the writer knew: read, or produced by its own write
	Now   int    // the resource's version when the request was decided
}

// Describe says in words how stale the request was: "stale: read v0, now
// v1", "stale: never read, now v1"; "" for a fresh one.
func (f Freshness) Describe() string {
	switch {
	case !f.Stale:
		return ""
	case !f.Read:
		return "stale: never read, now v" + strconv.Itoa(f.Now)
	}
	return "stale: read v" + strconv.Itoa(f.Known) + ", now v" + strconv.Itoa(f.Now)
}

// RMWFreshness is, under policy p, the freshness of each rmw request at
// the step that decided it: its write, the deliver that accepted or
// rejected it, or the commit that applied it; keyed by position in
// t.Steps. It is read from the trace by the rule of "Versions and
// staleness" in the package doc, so that pictures of a run do not work it
// out again; a test holds it to the replay's own cas decisions and
// lost-update violations. A trace without versions (no rmw write) gives
// an empty map.
func RMWFreshness(t *Trace, p Policy) map[int]Freshness {
	out := map[int]Freshness{}
	if len(t.Steps) == 0 || t.Steps[0].Outcomes.Of(p).Versions == nil {
		return out
	}
	w := freshWalk{seen: map[actorResource]Freshness{}, flying: map[string]Freshness{}, sends: map[string]Event{}}
	for _, st := range t.Steps {
		if st.Event.Actor != "" {
			w.actors = append(w.actors, st.Event.Actor)
		}
	}
	var before map[string]int
	for i, st := range t.Steps {
		o := st.Outcomes.Of(p)
		if o.Decision != Skipped {
			w.step(i, st.Event, o, before, out)
		}
		before = o.Versions
	}
	return out
}

// actorResource keys what an actor knows of a resource.
type actorResource struct{ actor, resource string }

// freshWalk follows what each actor knows of each resource, and each rmw
// request in flight, through a trace under one policy.
type freshWalk struct {
	actors []string                    // every actor of the trace, repeats allowed
	seen   map[actorResource]Freshness // what an actor knows; the zero value before any write
	flying map[string]Freshness        // rmw requests sent and not yet applied or rejected
	sends  map[string]Event            // request id → its send or write
}

// step follows one step that was not skipped; before is every resource's
// version before it.
func (w *freshWalk) step(i int, e Event, o Outcome, before map[string]int, out map[int]Freshness) {
	switch {
	case e.Kind == Read:
		for r, v := range o.Versions {
			if e.Resource == "" || e.Resource == r {
				w.seen[actorResource{e.Actor, r}] = Freshness{Read: true, Known: v}
			}
		}
	case e.Kind.rule().sends:
		w.sends[e.ID] = e
		if e.IsRMW() {
			w.flying[e.ID] = w.seen[actorResource{e.Actor, e.Resource}]
		}
	}
	id, applied, decided := decision(e, o.Decision)
	if !decided {
		return
	}
	sent := w.sends[id]
	if f, ok := w.flying[id]; ok {
		f.Now = before[sent.Resource]
		out[i] = f
		delete(w.flying, id)
	}
	if applied {
		w.landed(sent, o.Versions[sent.Resource])
	}
}

// decision names the request step e decides, whether it applied it, and
// whether it decided it at all (a checked deliver waits for its commit).
func decision(e Event, d Decision) (id string, applied, decided bool) {
	switch {
	case e.Kind == Write && (d == Accepted || d == Rejected):
		return e.ID, d == Accepted, true
	case e.Kind == Deliver && (d == Accepted || d == Rejected):
		return e.Request, d == Accepted, true
	case e.Kind == Commit && d == Applied:
		return e.Request, true, true
	}
	return "", false, false
}

// landed makes every other actor, and every other actor's rmw request in
// flight to the same resource, stale there; the writer knows the version
// its write produced.
func (w *freshWalk) landed(sent Event, version int) {
	for _, a := range w.actors {
		k := actorResource{a, sent.Resource}
		f := w.seen[k]
		switch {
		case a == sent.Actor:
			f.Known = version
		case !f.Stale:
			f.Stale, f.By = true, sent.Actor
		}
		w.seen[k] = f
	}
	for id, f := range w.flying {
		if q := w.sends[id]; q.Resource == sent.Resource && q.Actor != sent.Actor && !f.Stale {
			f.Stale, f.By = true, sent.Actor
			w.flying[id] = f
		}
	}
}
