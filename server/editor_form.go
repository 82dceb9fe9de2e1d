package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"fencelab/lab"
	"fencelab/views"
)

// The editor's form names the scenario's parts: title, description,
// scope.N.name and .first_token, resource.N.name, .fencing and .remember,
// actor.N.name and .was, ev.N.kind and one ev.N.FIELD per field the kind
// takes, add.FIELD for the palette, and p for the policies compared. N
// counts from 1; for events it is the step number, as in the engine's
// errors.

// parseDraft reads the editor's form as typed. It never fails: whatever
// is wrong is for lab.Parse to say, on the field it names.
func parseDraft(form url.Values) views.Draft {
	d := views.Draft{
		From:        form.Get("from"),
		Title:       form.Get("title"),
		Description: form.Get("description"),
		Policies:    choosePolicies(form["p"]),
	}
	for _, i := range formIndices(form, "scope", "name", lab.MaxScopes+1) {
		d.Scopes = append(d.Scopes, views.DraftScope{
			Name:       form.Get(formKey("scope", i, "name")),
			FirstToken: strings.TrimSpace(form.Get(formKey("scope", i, "first_token"))),
		})
	}
	for _, i := range formIndices(form, "resource", "name", lab.MaxResources+1) {
		r := views.DraftResource{Name: form.Get(formKey("resource", i, "name")), Remember: lab.Durable}
		r.Fencing = form.Get(formKey("resource", i, "fencing")) != ""
		if form.Get(formKey("resource", i, "remember")) == string(lab.Memory) {
			r.Remember = lab.Memory
		}
		d.Resources = append(d.Resources, r)
	}
	for _, i := range formIndices(form, "actor", "name", lab.MaxActors+1) {
		d.Actors = append(d.Actors, views.DraftActor{
			Name: strings.TrimSpace(form.Get(formKey("actor", i, "name"))),
			Was:  form.Get(formKey("actor", i, "was")),
		})
	}
	for _, i := range formIndices(form, "ev", "kind", lab.MaxEvents+1) {
		d.Events = append(d.Events, formEvent(form, "ev."+strconv.Itoa(i)+"."))
	}
	d.Add = formEvent(form, "add.")
	renameActors(&d)
	return d
}

// formEvent reads the fields named prefix+FIELD.
func formEvent(form url.Values, prefix string) views.DraftEvent {
	e := views.DraftEvent{Kind: lab.Kind(form.Get(prefix + "kind"))}
	for _, f := range views.EventFieldNames {
		e.SetEventField(f, form.Get(prefix+f))
	}
	return e
}

func formKey(part string, i int, field string) string {
	return part + "." + strconv.Itoa(i) + "." + field
}

// formIndices returns the N of every key part.N.field in ascending order,
// at most max of them: gaps and order in the form do not matter.
func formIndices(form url.Values, part, field string, max int) []int {
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
func renameActors(d *views.Draft) {
	var kept []views.DraftActor
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
		if a.Name != "" && !slices.ContainsFunc(kept, func(k views.DraftActor) bool { return k.Name == a.Name }) {
			kept = append(kept, views.DraftActor{Name: a.Name, Was: a.Name})
		}
	}
	d.Actors = kept
}

// compileDraft turns the draft into scenario JSON and parses it with the
// engine, so the draft is valid exactly when lab.Parse says so. The error
// is a *lab.ValidationError naming event index and field.
func compileDraft(d *views.Draft) (*lab.Scenario, error) {
	src, dups := draftJSON(d)
	sc, err := lab.Parse(bytes.NewReader(src))
	if len(dups) == 0 {
		return sc, err
	}
	var inv *lab.ValidationError
	if errors.As(err, &inv) {
		dups = append(dups, inv.Errors...)
	} else if err != nil {
		return nil, err
	}
	return nil, &lab.ValidationError{Errors: dups}
}

// draftJSON writes the draft in the scenario file format. Empty optional
// fields are left out, and an event gets only the fields its kind takes
// (a write or send always has its value, maybe ""). A name declared twice
// cannot be written as JSON, so it is reported here, in the engine's terms.
func draftJSON(d *views.Draft) ([]byte, []lab.FieldError) {
	var dups []lab.FieldError
	file := map[string]any{"version": 1, "title": d.Title}
	if d.Description != "" {
		file["description"] = d.Description
	}
	if len(d.Scopes) > 0 {
		scopes := map[string]map[string]json.RawMessage{}
		for _, s := range d.Scopes {
			if _, ok := scopes[s.Name]; ok {
				dups = append(dups, lab.FieldError{Field: "scopes." + s.Name, Message: "is declared twice: give each scope its own name"})
			}
			obj := map[string]json.RawMessage{}
			if s.FirstToken != "" {
				obj["first_token"] = numberJSON(s.FirstToken)
			}
			scopes[s.Name] = obj
		}
		file["scopes"] = scopes
	}
	if len(d.Resources) > 0 {
		resources := map[string]map[string]any{}
		for _, r := range d.Resources {
			if _, ok := resources[r.Name]; ok {
				dups = append(dups, lab.FieldError{Field: "resources." + r.Name, Message: "is declared twice: give each resource its own name"})
			}
			resources[r.Name] = map[string]any{"fencing": r.Fencing, "remember": r.Remember}
		}
		file["resources"] = resources
	}
	events := make([]map[string]json.RawMessage, len(d.Events))
	for i, e := range d.Events {
		events[i] = eventJSON(e)
	}
	file["events"] = events
	src, err := json.Marshal(file)
	if err != nil { // maps of strings and raw JSON that is valid by construction
		panic("editor: encode draft: " + err.Error())
	}
	return src, dups
}

// eventJSON writes one event. An unknown kind keeps every field given, so
// that the engine names the kind rather than each field.
func eventJSON(e views.DraftEvent) map[string]json.RawMessage {
	obj := map[string]json.RawMessage{"kind": stringJSON(string(e.Kind))}
	fields := views.KindFields(e.Kind)
	if fields == nil {
		fields = views.EventFieldNames
	}
	for _, f := range append(slices.Clip(fields), "note") {
		v := e.EventField(f)
		switch {
		case f == "value" && views.Takes(e.Kind, f):
			obj[f] = stringJSON(v)
		case v == "":
		case f == "token":
			obj[f] = numberJSON(v)
		default:
			obj[f] = stringJSON(v)
		}
	}
	return obj
}

// numberJSON writes a typed number as it is, "null" as null, and anything
// else as a string, for the engine to reject with its own message.
func numberJSON(s string) json.RawMessage {
	s = strings.TrimSpace(s)
	if s == "null" {
		return json.RawMessage("null")
	}
	if s != "" && (s[0] == '-' || '0' <= s[0] && s[0] <= '9') && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return stringJSON(s)
}

func stringJSON(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always encodes
	return b
}

// draftOf is the draft of a parsed scenario. Parse filled in the only
// scope and the only resource on the events; the draft leaves them to the
// default again, so the cards show only what a person would write.
func draftOf(s *lab.Scenario, from string) views.Draft {
	d := views.Draft{From: from, Title: s.Title, Description: s.Description}
	for _, name := range lab.SortedNames(s.Scopes) {
		d.Scopes = append(d.Scopes, views.DraftScope{Name: name, FirstToken: strconv.FormatInt(s.Scopes[name].FirstToken, 10)})
	}
	for _, name := range lab.SortedNames(s.Resources) {
		r := s.Resources[name]
		d.Resources = append(d.Resources, views.DraftResource{Name: name, Fencing: r.Fencing, Remember: r.Remember})
	}
	for _, e := range s.Events {
		if e.Actor != "" && !slices.ContainsFunc(d.Actors, func(a views.DraftActor) bool { return a.Name == e.Actor }) {
			d.Actors = append(d.Actors, views.DraftActor{Name: e.Actor, Was: e.Actor})
		}
		d.Events = append(d.Events, draftEvent(e, len(s.Scopes) == 1, len(s.Resources) == 1))
	}
	if len(d.Actors) == 0 {
		d.Actors = []views.DraftActor{{Name: "A", Was: "A"}, {Name: "B", Was: "B"}}
	}
	d.Add = views.DraftEvent{Kind: lab.Acquire, Actor: d.Actors[0].Name}
	return d
}

func draftEvent(e lab.Event, oneScope, oneResource bool) views.DraftEvent {
	de := views.DraftEvent{
		Kind: e.Kind, Actor: e.Actor, Scope: e.Scope, Resource: e.Resource,
		ID: e.ID, Request: e.Request, Op: e.Op, Note: e.Note,
	}
	if oneScope {
		de.Scope = ""
	}
	if oneResource && e.Kind != lab.Restart {
		de.Resource = ""
	}
	if e.Value != nil {
		de.Value = *e.Value
	}
	switch {
	case e.Token != nil:
		de.Token = strconv.FormatInt(*e.Token, 10)
	case e.TokenNull:
		de.Token = "null"
	}
	return de
}

// blankDraft is the editor's empty page: two actors, the default scope
// and resource, no events yet.
func blankDraft() views.Draft {
	return views.Draft{
		Title:     "A new timeline",
		Scopes:    []views.DraftScope{{Name: "job", FirstToken: "1"}},
		Resources: []views.DraftResource{{Name: "result", Fencing: true, Remember: lab.Durable}},
		Actors:    []views.DraftActor{{Name: "A", Was: "A"}, {Name: "B", Was: "B"}},
		Add:       views.DraftEvent{Kind: lab.Acquire, Actor: "A"},
	}
}
