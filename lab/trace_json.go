package lab

import (
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends the trace's JSON to b: byte for byte what
// encoding/json writes for it, written without reflection. The API and the
// CLI send traces on every replay, and encoding/json took more time than
// the replay itself.
func (t *Trace) AppendJSON(b []byte) []byte {
	b = append(b, `{"policies":`...)
	b = appendPolicies(b, t.Policies)
	b = append(b, `,"steps":`...)
	if t.Steps == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range t.Steps {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendStep(b, &t.Steps[i])
		}
		b = append(b, ']')
	}
	b = append(b, `,"summary":`...)
	b = appendSummaries(b, t.Summary)
	b = append(b, `,"warnings":`...)
	b = appendWarnings(b, t.Warnings)
	return append(b, '}')
}

// MarshalJSON is AppendJSON for encoding/json.
func (t *Trace) MarshalJSON() ([]byte, error) {
	return t.AppendJSON(make([]byte, 0, 16<<10)), nil
}

func appendPolicies(b []byte, ps []Policy) []byte {
	if ps == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, p := range ps {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, string(p))
	}
	return append(b, ']')
}

func appendStep(b []byte, s *Step) []byte {
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, int64(s.Index), 10)
	b = append(b, `,"event":`...)
	b = appendEvent(b, &s.Event)
	b = append(b, `,"token":`...)
	b = appendToken(b, s.Token)
	b = append(b, `,"warning":`...)
	b = appendString(b, s.Warning)
	b = append(b, `,"outcomes":{`...)
	for i, p := range policies {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, string(p))
		b = append(b, ':')
		b = appendOutcome(b, &s.Outcomes[i])
	}
	return append(b, "}}"...)
}

// appendEvent writes an event as Event.MarshalJSON does: empty fields
// left out, an explicit null token kept.
func appendEvent(b []byte, e *Event) []byte {
	b = append(b, '{')
	b = appendField(b, "actor", e.Actor, true)
	b = appendField(b, "kind", string(e.Kind), false)
	b = appendField(b, "scope", e.Scope, false)
	b = appendField(b, "resource", e.Resource, false)
	if e.Value != nil {
		b = append(b, `,"value":`...)
		b = appendString(b, *e.Value)
	}
	b = appendField(b, "id", e.ID, false)
	b = appendField(b, "request", e.Request, false)
	b = appendField(b, "op", e.Op, false)
	switch {
	case e.Token != nil:
		b = append(b, `,"token":`...)
		b = strconv.AppendInt(b, *e.Token, 10)
	case e.TokenNull:
		b = append(b, `,"token":null`...)
	}
	b = appendBool(b, "split", e.Split)
	b = appendBool(b, "rmw", e.RMW)
	b = appendField(b, "note", e.Note, false)
	return append(b, '}')
}

// appendField writes ,"name":"v" (or without the comma when first), and
// nothing for an empty v but kind, which is never left out.
func appendField(b []byte, name, v string, first bool) []byte {
	if v == "" && name != "kind" {
		return b
	}
	if !first && b[len(b)-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, name...)
	b = append(b, `":`...)
	return appendString(b, v)
}

// appendBool writes ,"name":true or false as written; nothing when absent.
func appendBool(b []byte, name string, v *bool) []byte {
	if v == nil {
		return b
	}
	b = append(b, `,"`...)
	b = append(b, name...)
	b = append(b, `":`...)
	return strconv.AppendBool(b, *v)
}

func appendOutcome(b []byte, o *Outcome) []byte {
	b = append(b, `{"decision":`...)
	b = appendString(b, string(o.Decision))
	b = append(b, `,"reason":`...)
	b = appendString(b, o.Reason)
	b = append(b, `,"values":`...)
	b = appendValues(b, o.Values)
	b = append(b, `,"tokens":`...)
	b = appendMap(b, o.Tokens, appendToken)
	if len(o.Versions) > 0 {
		b = append(b, `,"versions":`...)
		b = appendMap(b, o.Versions, func(b []byte, v int) []byte { return strconv.AppendInt(b, int64(v), 10) })
	}
	return append(b, '}')
}

// appendMap writes a resource-keyed map with its keys sorted, as
// encoding/json does, each value by appendValue; null for a nil map.
func appendMap[V any](b []byte, m map[string]V, appendValue func([]byte, V) []byte) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	var arr [MaxResources]string
	b = append(b, '{')
	for i, k := range sortedMapKeys(arr[:0], m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = appendValue(b, m[k])
	}
	return append(b, '}')
}

// appendValues writes resource values: a string, or null before any write.
func appendValues(b []byte, m map[string]*string) []byte {
	return appendMap(b, m, func(b []byte, v *string) []byte {
		if v == nil {
			return append(b, "null"...)
		}
		return appendString(b, *v)
	})
}

// sortedMapKeys appends m's keys to keys, in order. Given room for every
// resource, it allocates nothing.
func sortedMapKeys[V any](keys []string, m map[string]V) []string {
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func appendToken(b []byte, t *int64) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, *t, 10)
}

func appendSummaries(b []byte, m map[Policy]Summary) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	keys := make([]string, 0, len(m))
	for p := range m {
		keys = append(keys, string(p))
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		s := m[Policy(k)]
		b = appendString(b, k)
		b = append(b, `:{"final":`...)
		b = appendValues(b, s.Final)
		b = append(b, `,"violations":`...)
		b = appendViolations(b, s.Violations)
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendViolations(b []byte, vs []Violation) []byte {
	if vs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"kind":`...)
		b = appendString(b, string(v.Kind))
		b = append(b, `,"step":`...)
		b = strconv.AppendInt(b, int64(v.Step), 10)
		b = append(b, `,"class":`...)
		b = appendString(b, string(v.Class))
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendWarnings(b []byte, ws []Warning) []byte {
	if ws == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, w := range ws {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"step":`...)
		b = strconv.AppendInt(b, int64(w.Step), 10)
		b = append(b, `,"message":`...)
		b = appendString(b, w.Message)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendString writes s as a JSON string exactly as encoding/json does:
// quotes, backslashes, control characters and the HTML characters < > &
// escaped, U+2028 and U+2029 escaped, invalid UTF-8 replaced by U+FFFD.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
