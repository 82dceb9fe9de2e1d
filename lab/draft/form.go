package draft

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"fencelab/lab"
)

// Decode reads the editor's form as typed. It never fails: whatever is
// wrong is for lab.Parse to say, on the field it names. The policies
// compared (p) are left to the caller, which knows the default choice.
func Decode(form url.Values) Draft {
	d := Draft{
		From:        form.Get("from"),
		Title:       form.Get("title"),
		Description: form.Get("description"),
	}
	for _, i := range indices(form, ScopePart, "name", lab.MaxScopes+1) {
		d.Scopes = append(d.Scopes, Scope{
			Name:       form.Get(Name(ScopePart, i, "name")),
			FirstToken: strings.TrimSpace(form.Get(Name(ScopePart, i, "first_token"))),
			Remember:   lab.Remember(form.Get(Name(ScopePart, i, "remember"))),
		})
	}
	for _, i := range indices(form, ResourcePart, "name", lab.MaxResources+1) {
		r := Resource{Name: form.Get(Name(ResourcePart, i, "name")), Remember: lab.Durable}
		r.Fencing = form.Get(Name(ResourcePart, i, "fencing")) != ""
		if form.Get(Name(ResourcePart, i, "remember")) == string(lab.Memory) {
			r.Remember = lab.Memory
		}
		r.Keys = lab.Remember(form.Get(Name(ResourcePart, i, "keys")))
		r.Tokens = lab.Tokens(form.Get(Name(ResourcePart, i, "tokens")))
		d.Resources = append(d.Resources, r)
	}
	for _, i := range indices(form, ActorPart, "name", lab.MaxActors+1) {
		d.Actors = append(d.Actors, Actor{
			Name: strings.TrimSpace(form.Get(Name(ActorPart, i, "name"))),
			Was:  form.Get(Name(ActorPart, i, "was")),
		})
	}
	for _, i := range indices(form, EventPart, "kind", lab.MaxEvents+1) {
		d.Events = append(d.Events, decodeEvent(form, func(f string) string { return EventName(i, f) }))
	}
	d.Add = decodeEvent(form, AddName)
	d.renameActors()
	return d
}

// decodeEvent reads the fields that named names. A restart's Restarts
// choice, when the form has one, says its resource and scope.
func decodeEvent(form url.Values, named func(field string) string) Event {
	e := Event{Kind: lab.Kind(form.Get(named("kind")))}
	for _, f := range fieldNames {
		e.SetField(f, form.Get(named(f)))
	}
	if e.Kind == lab.Restart && form.Has(named(Restarts)) {
		e.SetField(Restarts, form.Get(named(Restarts)))
	}
	return e
}

// indices returns the N of every key part.N.field in ascending order, at
// most max of them: gaps and order in the form do not matter.
func indices(form url.Values, part, field string, max int) []int {
	var out []int
	prefix, suffix := part+".", "."+field
	for k := range form {
		if !strings.HasPrefix(k, prefix) || !strings.HasSuffix(k, suffix) {
			continue
		}
		n, err := strconv.Atoi(k[len(prefix) : len(k)-len(suffix)])
		if err == nil && n > 0 {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > max {
		out = out[:max]
	}
	return out
}

// renameActors carries a renamed actor over to its events and the
// palette; an emptied name keeps the old one. Two actors renamed alike
// become one.
func (d *Draft) renameActors() {
	var kept []Actor
	for _, a := range d.Actors {
		if a.Name == "" {
			a.Name = a.Was
		}
		if a.Was != "" && a.Was != a.Name {
			for i := range d.Events {
				if d.Events[i].Actor == a.Was {
					d.Events[i].Actor = a.Name
				}
			}
			if d.Add.Actor == a.Was {
				d.Add.Actor = a.Name
			}
		}
		if a.Name != "" && !slices.ContainsFunc(kept, func(k Actor) bool { return k.Name == a.Name }) {
			kept = append(kept, Actor{Name: a.Name, Was: a.Name})
		}
	}
	d.Actors = kept
}
