package lab

import (
	"encoding/json"
	"slices"
)

// Fields lists the fields kind k takes besides kind and note, in the
// order of the spec's table; nil for an unknown kind. The editor offers
// exactly these. The slice is the caller's own.
func Fields(k Kind) []string { return slices.Clone(k.rule().fields) }

// allFields is every field any event may have, for telling a misplaced
// field from an unknown one.
var allFields = []string{"actor", "kind", "scope", "resource", "value", "id", "request", "op", "token", "split", "rmw", "note"}

func parseEvents(raw json.RawMessage, p *problems) []Event {
	if raw == nil {
		p.add(0, "events", "missing: the timeline, a list of events")
		return nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil || isNull(raw) {
		p.add(0, "events", "must be a list of events")
		return nil
	}
	if len(list) > MaxEvents {
		p.add(0, "events", "%d events, at most %d", len(list), MaxEvents)
		return nil
	}
	events := make([]Event, len(list))
	for i, r := range list {
		events[i] = parseEvent(r, i+1, p)
	}
	return events
}

func parseEvent(raw json.RawMessage, index int, p *problems) Event {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		p.add(index, "event", "an event must be a JSON object, like {\"actor\": \"A\", \"kind\": \"acquire\"}")
		return Event{}
	}
	var e Event
	kindRaw, ok := obj["kind"]
	if !ok {
		p.add(index, "kind", "missing: one of %s", kindList())
	} else if json.Unmarshal(kindRaw, &e.Kind) != nil || !e.Kind.known() {
		p.add(index, "kind", "unknown kind %s: use one of %s", clip(kindRaw), kindList())
		e.Kind = ""
	}
	checkEventKeys(obj, e.Kind, index, p)
	if note, ok := obj["note"]; ok {
		e.Note = textField(note, index, "note", MaxNote, p)
	}
	if e.Kind == "" {
		return e
	}
	r := e.Kind.rule()
	for i, f := range r.fields {
		v, ok := obj[f]
		if !ok {
			if i < r.required {
				p.add(index, f, "missing: %s needs %s", e.Kind, describe(f))
			}
			continue
		}
		setField(&e, f, v, index, p)
	}
	if e.Kind == Restart {
		_, res := obj["resource"]
		_, sc := obj["scope"]
		switch {
		case !res && !sc:
			p.add(index, "resource", "missing: restart needs a resource (a receiver) or a scope (a lease service)")
		case res && sc:
			p.add(index, "scope", "restart takes a resource or a scope, not both: a receiver and a lease service restart apart")
		}
	}
	return e
}

// checkEventKeys reports fields that no event has, and fields this kind does not take.
func checkEventKeys(obj map[string]json.RawMessage, kind Kind, index int, p *problems) {
	for _, k := range sortedKeys(obj) {
		switch {
		case k == "kind" || k == "note":
		case !slices.Contains(allFields, k):
			p.add(index, keyName(k), "unknown field")
		case kind != "" && !kind.rule().takes(k):
			p.add(index, k, "%s does not take %s (it takes %s)", kind, k, takes(kind))
		}
	}
}

func setField(e *Event, f string, v json.RawMessage, index int, p *problems) {
	switch f {
	case "actor":
		e.Actor = nameField(v, index, f, 16, p)
	case "scope":
		e.Scope = nameField(v, index, f, 32, p)
	case "resource":
		e.Resource = nameField(v, index, f, 32, p)
	case "id":
		e.ID = nameField(v, index, f, 32, p)
	case "request":
		e.Request = nameField(v, index, f, 32, p)
	case "op":
		e.Op = nameField(v, index, f, 32, p)
	case "value":
		s := textField(v, index, f, MaxValue, p)
		e.Value = &s
	case "token":
		setToken(e, v, index, p)
	case "split":
		e.Split = boolField(v, index, f, p)
	case "rmw":
		e.RMW = boolField(v, index, f, p)
	}
}

// boolField decodes true or false; nothing else, not even null.
func boolField(v json.RawMessage, index int, field string, p *problems) *bool {
	var b bool
	if json.Unmarshal(v, &b) != nil || isNull(v) {
		p.add(index, field, "must be true or false, got %s", clip(v))
		return nil
	}
	return &b
}

func setToken(e *Event, v json.RawMessage, index int, p *problems) {
	if isNull(v) {
		// On a write or send, null is a worker that sends no token; on an
		// acquire it asks for the issuer's next token, as if absent.
		e.TokenNull = e.Kind.rule().sends
		return
	}
	n, ok := asInt(v)
	if !ok {
		p.add(index, "token", "must be a 64-bit integer or null, got %s", clip(v))
		return
	}
	e.Token = &n
}

func nameField(v json.RawMessage, index int, field string, max int, p *problems) string {
	var s string
	if json.Unmarshal(v, &s) != nil || isNull(v) {
		p.add(index, field, "must be a string, got %s", clip(v))
		return ""
	}
	if !validName(s, max) {
		p.add(index, field, "%q is not a name: use 1 to %d of A-Z a-z 0-9 _ -", s, max)
		return ""
	}
	return s
}

func describe(field string) string {
	switch field {
	case "actor":
		return "an actor, the worker that acts"
	case "value":
		return "a value, the string it writes"
	case "id":
		return "an id naming the request, for its deliver"
	case "request":
		return "a request, the id of a send"
	case "resource":
		return "a resource, the receiver that restarts"
	}
	return field
}

func takes(k Kind) string {
	s := ""
	for i, f := range k.rule().fields {
		if i > 0 {
			s += ", "
		}
		s += f
	}
	return s + ", note"
}

func kindList() string {
	s := ""
	for i, k := range kinds {
		if i > 0 {
			s += " "
		}
		s += string(k)
	}
	return s
}

// UnmarshalJSON reads an event as MarshalJSON writes it, keeping an
// explicit "token": null apart from an absent token, so that a stored trace
// reads back as it was written. It does not validate: Parse does.
func (e *Event) UnmarshalJSON(data []byte) error {
	type plain Event
	var p struct {
		plain
		Token json.RawMessage `json:"token"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*e = Event(p.plain)
	switch {
	case p.Token == nil:
	case isNull(p.Token):
		e.TokenNull = true
	default:
		var t int64
		if err := json.Unmarshal(p.Token, &t); err != nil {
			return err
		}
		e.Token = &t
	}
	return nil
}

// MarshalJSON writes the event as in a scenario file, with "token": null
// when the event carries no token on purpose.
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event
	if !e.TokenNull || e.Token != nil {
		return json.Marshal(plain(e))
	}
	return json.Marshal(struct {
		plain
		Token *int64 `json:"token"`
	}{plain(e), nil})
}
