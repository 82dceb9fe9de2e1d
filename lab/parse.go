package lab

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Parse reads a scenario strictly, fills in its defaults and validates it.
// The error is a *SyntaxError when the input is not JSON, or a
// *ValidationError listing every problem, each naming event index and field.
// The scenario comes compiled for Replay, which compiles it again only if
// it was changed since.
func Parse(r io.Reader) (*Scenario, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	top, err := decodeObject(data)
	if err != nil {
		return nil, err
	}
	var p problems
	s := parseScenario(top, &p)
	validate(s, &p)
	if err := p.err(); err != nil {
		return nil, err
	}
	s.compiled = newCompiled(s)
	return s, nil
}

// decodeObject checks the syntax of the whole input, then splits the top
// object into its raw fields.
func decodeObject(data []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return nil, syntaxError(err, dec.InputOffset())
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &SyntaxError{Offset: dec.InputOffset(), Err: errors.New("unexpected data after the scenario object")}
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(v, &top); err != nil || top == nil {
		return nil, &ValidationError{Errors: []FieldError{{Field: "scenario", Message: "a scenario must be a JSON object"}}}
	}
	return top, nil
}

func syntaxError(err error, offset int64) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		offset = se.Offset
	}
	if err == io.EOF {
		err = errors.New("empty input")
	}
	return &SyntaxError{Offset: offset, Err: err}
}

var scenarioFields = []string{"version", "title", "description", "scopes", "resources", "events"}

func parseScenario(top map[string]json.RawMessage, p *problems) *Scenario {
	s := &Scenario{}
	unknownFields(top, scenarioFields, 0, "", p)
	if raw, ok := top["version"]; !ok {
		p.add(0, "version", "missing: the format version, 1")
	} else if n, ok := asInt(raw); !ok || n != 1 {
		p.add(0, "version", "must be 1, got %s", clip(raw))
	} else {
		s.Version = 1
	}
	if raw, ok := top["title"]; !ok {
		p.add(0, "title", "missing: a title of 1 to %d characters", MaxTitle)
	} else {
		s.Title = textField(raw, 0, "title", MaxTitle, p)
		if strings.TrimSpace(s.Title) == "" && bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`"`)) {
			p.add(0, "title", "is empty: give the scenario a title of 1 to %d characters", MaxTitle)
		}
	}
	if raw, ok := top["description"]; ok {
		s.Description = textField(raw, 0, "description", MaxDescription, p)
	}
	s.Scopes = parseScopes(top["scopes"], p)
	s.Resources = parseResources(top["resources"], p)
	s.Events = parseEvents(top["events"], p)
	return s
}

// unknownFields reports the keys of obj that are not in allowed, sorted so
// that the report is the same every time.
func unknownFields(obj map[string]json.RawMessage, allowed []string, index int, prefix string, p *problems) {
	var extra []string
	for k := range obj {
		if !slices.Contains(allowed, k) {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	for _, k := range extra {
		p.add(index, prefix+keyName(k), "unknown field")
	}
}

func parseScopes(raw json.RawMessage, p *problems) map[string]Scope {
	if raw == nil {
		return map[string]Scope{"job": {FirstToken: 1}}
	}
	objs := namedObjects(raw, "scopes", MaxScopes, p)
	scopes := make(map[string]Scope, len(objs))
	for _, name := range sortedKeys(objs) {
		field := "scopes." + name
		unknownFields(objs[name], []string{"first_token", "remember"}, 0, field+".", p)
		sc := Scope{FirstToken: 1}
		if m, ok := objs[name]["remember"]; ok {
			sc.Remember = Remember(option(m, field+".remember", []string{string(Durable), string(Memory)}, p))
		}
		if t, ok := objs[name]["first_token"]; ok {
			if n, ok := asInt(t); ok {
				sc.FirstToken = n
			} else {
				p.add(0, field+".first_token", "must be a 64-bit integer, got %s", clip(t))
			}
		}
		scopes[name] = sc
	}
	return scopes
}

func parseResources(raw json.RawMessage, p *problems) map[string]Resource {
	if raw == nil {
		return map[string]Resource{"result": {Fencing: true, Remember: Durable}}
	}
	objs := namedObjects(raw, "resources", MaxResources, p)
	resources := make(map[string]Resource, len(objs))
	for _, name := range sortedKeys(objs) {
		field := "resources." + name
		unknownFields(objs[name], []string{"fencing", "remember", "keys", "tokens"}, 0, field+".", p)
		r := Resource{Fencing: true, Remember: Durable}
		if f, ok := objs[name]["fencing"]; ok {
			if err := json.Unmarshal(f, &r.Fencing); err != nil || isNull(f) {
				p.add(0, field+".fencing", "must be true or false, got %s", clip(f))
			}
		}
		if m, ok := objs[name]["remember"]; ok {
			var s string
			if json.Unmarshal(m, &s) != nil || (s != string(Durable) && s != string(Memory)) {
				p.add(0, field+".remember", `must be "durable" or "memory", got %s`, clip(m))
			} else {
				r.Remember = Remember(s)
			}
		}
		if k, ok := objs[name]["keys"]; ok {
			r.Keys = Remember(option(k, field+".keys", []string{string(Durable), string(Memory)}, p))
		}
		if t, ok := objs[name]["tokens"]; ok {
			r.Tokens = Tokens(option(t, field+".tokens", []string{string(SharedTokens), string(PerScopeTokens)}, p))
		}
		resources[name] = r
	}
	return resources
}

// option decodes a string that must be one of values; "" when it is not.
func option(raw json.RawMessage, field string, values []string, p *problems) string {
	var s string
	if json.Unmarshal(raw, &s) != nil || !slices.Contains(values, s) {
		p.add(0, field, `must be %q or %q, got %s`, values[0], values[1], clip(raw))
		return ""
	}
	return s
}

// namedObjects decodes an object of named objects (scopes, resources),
// checking the names and the count.
func namedObjects(raw json.RawMessage, field string, max int, p *problems) map[string]map[string]json.RawMessage {
	var objs map[string]map[string]json.RawMessage
	if err := json.Unmarshal(raw, &objs); err != nil || objs == nil {
		p.add(0, field, "must be an object of named objects, like {\"job\": {}}")
		return nil
	}
	if len(objs) == 0 {
		p.add(0, field, "declares nothing: declare at least one, or leave the field out for the default")
	}
	if len(objs) > max {
		p.add(0, field, "%d declared, at most %d", len(objs), max)
	}
	for _, name := range sortedKeys(objs) {
		if !validName(name, 32) {
			p.add(0, field+"."+name, "name must be 1 to 32 of A-Z a-z 0-9 _ -")
		}
	}
	return objs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// textField decodes a string of at most max characters.
func textField(raw json.RawMessage, index int, field string, max int, p *problems) string {
	var s string
	if json.Unmarshal(raw, &s) != nil || isNull(raw) {
		p.add(index, field, "must be a string, got %s", clip(raw))
		return ""
	}
	if !utf8.Valid(raw) {
		// encoding/json would quietly turn the bytes into U+FFFD.
		p.add(index, field, "is not valid UTF-8 text")
		return s
	}
	if n := utf8.RuneCountInString(s); n > max {
		p.add(index, field, "is %d characters long, at most %d", n, max)
	}
	multiline, allowed := field == "description" || field == "note", "printable text"
	if multiline {
		allowed += ", line breaks and tabs"
	}
	for i, r := range []rune(s) {
		if isControl(r, multiline) {
			p.add(index, field, "has the control character %U at character %d: only %s", r, i+1, allowed)
			break
		}
	}
	return s
}

// isControl reports the characters refused in text: C0 controls (but line
// breaks and tabs where the text may have several lines), DEL and C1.
func isControl(r rune, multiline bool) bool {
	if multiline && (r == '\n' || r == '\r' || r == '\t') {
		return false
	}
	return r < 0x20 || 0x7f <= r && r <= 0x9f
}

// asInt decodes a JSON integer that fits 64 bits; 1.0 and 1e3 are not integers here.
func asInt(raw json.RawMessage) (int64, bool) {
	n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	return n, err == nil
}

// keyName shows a JSON key as a field name; the empty key is shown quoted.
func keyName(k string) string {
	if k == "" {
		return `""`
	}
	return k
}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// clip shows a bad value in an error message without echoing a huge one.
func clip(raw json.RawMessage) string {
	s := string(bytes.TrimSpace(raw))
	if utf8.RuneCountInString(s) > 40 {
		s = string([]rune(s)[:40]) + "…"
	}
	return s
}

// validName reports whether s is 1..max of A-Z a-z 0-9 _ -.
func validName(s string, max int) bool {
	if len(s) == 0 || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
