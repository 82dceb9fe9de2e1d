package draft

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"fencelab/lab"
)

// Compile turns the draft into scenario JSON and parses it with the
// engine, so the draft is valid exactly when lab.Parse says so. The error
// is a *lab.ValidationError naming event index and field.
func Compile(d *Draft) (*lab.Scenario, error) {
	src, dups := d.scenarioJSON()
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

// scenarioJSON writes the draft in the scenario file format. Empty
// optional fields are left out, and an event gets only the fields its kind
// takes (a write or send always has its value, maybe ""). A name declared
// twice cannot be written as JSON, so it is reported here, in the engine's
// terms.
func (d *Draft) scenarioJSON() ([]byte, []lab.FieldError) {
	var dups []lab.FieldError
	title := d.Title
	if strings.TrimSpace(title) == "" {
		title = DefaultTitle
	}
	file := map[string]any{"version": 1, "title": title}
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
			if s.Remember != "" {
				obj["remember"] = stringJSON(string(s.Remember))
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
			obj := map[string]any{"fencing": r.Fencing, "remember": r.Remember}
			if r.Keys != "" {
				obj["keys"] = r.Keys
			}
			if r.Tokens != "" {
				obj["tokens"] = r.Tokens
			}
			resources[r.Name] = obj
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
		panic("draft: encode: " + err.Error())
	}
	return src, dups
}

// eventJSON writes one event. An unknown kind keeps every field given, so
// that the engine names the kind rather than each field.
func eventJSON(e Event) map[string]json.RawMessage {
	obj := map[string]json.RawMessage{"kind": stringJSON(string(e.Kind))}
	fields := KindFields(e.Kind)
	if fields == nil {
		fields = fieldNames
	}
	for _, f := range append(slices.Clip(fields), "note") {
		v := e.Field(f)
		switch {
		case f == "value" && Takes(e.Kind, f):
			obj[f] = stringJSON(v)
		case v == "":
		case f == "token":
			obj[f] = numberJSON(v)
		case f == "split" || f == "rmw":
			obj[f] = boolJSON(v)
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

// boolJSON writes true and false as they are, and anything else as a
// string, for the engine to reject with its own message.
func boolJSON(s string) json.RawMessage {
	if s = strings.TrimSpace(s); s == "true" || s == "false" {
		return json.RawMessage(s)
	}
	return stringJSON(s)
}

func stringJSON(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always encodes
	return b
}

// Of is the draft of a parsed scenario that came from from. Parse filled
// in the only scope and the only resource on the events; the draft leaves
// them to the default again, so the cards show only what a person would
// write.
func Of(s *lab.Scenario, from string) Draft {
	d := Draft{From: from, Title: s.Title, Description: s.Description}
	for _, name := range lab.SortedNames(s.Scopes) {
		sc := s.Scopes[name]
		d.Scopes = append(d.Scopes, Scope{Name: name, FirstToken: strconv.FormatInt(sc.FirstToken, 10), Remember: sc.Remember})
	}
	for _, name := range lab.SortedNames(s.Resources) {
		r := s.Resources[name]
		d.Resources = append(d.Resources, Resource{Name: name, Fencing: r.Fencing, Remember: r.Remember, Keys: r.Keys, Tokens: r.Tokens})
	}
	for _, e := range s.Events {
		if e.Actor != "" && !slices.ContainsFunc(d.Actors, func(a Actor) bool { return a.Name == e.Actor }) {
			d.Actors = append(d.Actors, Actor{Name: e.Actor, Was: e.Actor})
		}
		d.Events = append(d.Events, eventOf(e, len(s.Scopes) == 1, len(s.Resources) == 1))
	}
	if len(d.Actors) == 0 {
		d.Actors = []Actor{{Name: "A", Was: "A"}, {Name: "B", Was: "B"}}
	}
	d.Add = Event{Kind: lab.Acquire, Actor: d.Actors[0].Name}
	return d
}

// boolText is a flag as typed: "" when it was left out.
func boolText(b *bool) string {
	if b == nil {
		return ""
	}
	return strconv.FormatBool(*b)
}

func eventOf(e lab.Event, oneScope, oneResource bool) Event {
	de := Event{
		Kind: e.Kind, Actor: e.Actor, Scope: e.Scope, Resource: e.Resource,
		ID: e.ID, Request: e.Request, Op: e.Op, Note: e.Note,
	}
	// Only where Parse filled them in: a read's resource, and a check's,
	// write's or restart's scope, are as written (model 3).
	if oneScope && e.Kind.DefaultsScope() {
		de.Scope = ""
	}
	if oneResource && e.Kind.DefaultsResource() {
		de.Resource = ""
	}
	de.Split, de.RMW = boolText(e.Split), boolText(e.RMW)
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
