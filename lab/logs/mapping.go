package logs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"fencelab/lab"
)

// Mapping says where each fact of an event is in a log line (contract
// v2). The top-level keys apply to every file; Files are sections for
// kinds of files, matched by name. A version 1 mapping (no sections, no
// kind rules, every fact a field name) means what it meant in version 1.
type Mapping struct {
	Keys
	Files []Section `json:"files,omitempty"`
}

// Section is the part of a mapping for the files whose base name matches
// Match (a path.Match glob). Its keys replace the top-level ones.
type Section struct {
	Match string `json:"match"`
	Keys
}

// Keys are the keys a mapping and its sections share.
type Keys struct {
	Time     *Fact `json:"time,omitempty"`
	Actor    *Fact `json:"actor,omitempty"`
	Token    *Fact `json:"token,omitempty"`
	Scope    *Fact `json:"scope,omitempty"`
	Resource *Fact `json:"resource,omitempty"`
	Value    *Fact `json:"value,omitempty"`
	Request  *Fact `json:"request,omitempty"`
	Op       *Fact `json:"op,omitempty"`
	Host     *Fact `json:"host,omitempty"`
	Lease    *Fact `json:"lease,omitempty"`
	Message  *Fact `json:"message,omitempty"`

	Kind     *KindMap   `json:"kind,omitempty"`
	Kinds    []KindRule `json:"kinds,omitempty"`
	Observed *ObsMap    `json:"observed,omitempty"`

	// Reading options.
	Format     Formats `json:"format,omitempty"`
	Pattern    string  `json:"pattern,omitempty"`
	Rest       string  `json:"rest,omitempty"`
	Zone       string  `json:"zone,omitempty"`
	Year       int     `json:"year,omitempty"`
	TimeUnit   string  `json:"time_unit,omitempty"`
	TimeLayout string  `json:"time_layout,omitempty"`
}

// Fact is where one fact of an event is: a field, the first present of
// several fields, a regular expression's capture in a field, or a
// constant.
type Fact struct {
	Fields []string       // one or more field names, the first present wins
	Field  string         // with Match: the field searched
	Match  *regexp.Regexp // its first group (the whole match without one)
	Value  *string        // a constant
}

// FieldFact is a fact read from one field, as version 1 names them.
func FieldFact(name string) *Fact { return &Fact{Fields: []string{name}} }

// UnmarshalJSON reads a field name, a list of them, {"field", "match"}
// or {"value"}.
func (f *Fact) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		f.Fields = []string{s}
		return nil
	case len(b) > 0 && b[0] == '[':
		var l []string
		if err := json.Unmarshal(b, &l); err != nil {
			return fmt.Errorf("a list of field names: %w", err)
		}
		if len(l) == 0 {
			return fmt.Errorf("an empty list of field names")
		}
		f.Fields = l
		return nil
	case len(b) > 0 && b[0] == '{':
		var o struct {
			Field *string `json:"field"`
			Match *string `json:"match"`
			Value *string `json:"value"`
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil {
			return fmt.Errorf("{\"field\", \"match\"} or {\"value\"}: %w", err)
		}
		switch {
		case o.Value != nil && o.Field == nil && o.Match == nil:
			f.Value = o.Value
		case o.Value == nil && o.Field != nil:
			f.Field = *o.Field
			if o.Match != nil {
				re, err := compile(*o.Match)
				if err != nil {
					return err
				}
				f.Match = re
			} else {
				f.Fields = []string{f.Field}
			}
		default:
			return fmt.Errorf("give {\"field\": F, \"match\": RE} or {\"value\": V}")
		}
		return nil
	}
	return fmt.Errorf("a fact is a field name, a list of them, {\"field\", \"match\"} or {\"value\"}")
}

// MarshalJSON writes the fact back in the form it was read.
func (f *Fact) MarshalJSON() ([]byte, error) {
	switch {
	case f.Value != nil:
		return json.Marshal(map[string]string{"value": *f.Value})
	case f.Match != nil:
		return json.Marshal(map[string]string{"field": f.Field, "match": f.Match.String()})
	case len(f.Fields) == 1:
		return json.Marshal(f.Fields[0])
	}
	return json.Marshal(f.Fields)
}

// simple reports whether the fact is one field name, as in version 1.
func (f *Fact) simple() bool {
	return f == nil || (f.Value == nil && f.Match == nil && len(f.Fields) == 1)
}

// names lists the fields the fact reads.
func (f *Fact) names() []string {
	if f == nil {
		return nil
	}
	if f.Match != nil {
		return []string{f.Field}
	}
	return f.Fields
}

// Formats is a section's format: one, or a list tried in order per line.
type Formats []Format

// UnmarshalJSON reads a format name or a list of them.
func (fs *Formats) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		f, err := ParseFormat(one)
		if err != nil {
			return err
		}
		if f != "" {
			*fs = Formats{f}
		}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return fmt.Errorf("format is a name or a list of names")
	}
	for _, s := range list {
		f, err := ParseFormat(s)
		if err != nil {
			return err
		}
		if f == "" {
			return fmt.Errorf("format list: an empty name")
		}
		*fs = append(*fs, f)
	}
	return nil
}

// MarshalJSON writes one format as a name.
func (fs Formats) MarshalJSON() ([]byte, error) {
	if len(fs) == 1 {
		return json.Marshal(string(fs[0]))
	}
	return json.Marshal([]Format(fs))
}

// KindMap is version 1's kind: the field that tells what a line is, and
// which of its values are events of which kind. Field defaults to the
// message field.
type KindMap struct {
	Field  string            `json:"field,omitempty"`
	Values map[string]string `json:"values"`
}

// KindRule is one rule of kinds: a line whose text (the message, or
// Field) equals Is or is matched by Match, with every Where field present
// and matching, is of Kind, with the facts its named groups and
// constants give.
type KindRule struct {
	Kind  string            `json:"kind"`
	Is    *string           `json:"is,omitempty"`
	Match string            `json:"match,omitempty"`
	Field string            `json:"field,omitempty"`
	Where map[string]string `json:"where,omitempty"`
	Unit  string            `json:"unit,omitempty"`
	// Constants: any fact as text.
	Actor    *string `json:"actor,omitempty"`
	Token    *string `json:"token,omitempty"`
	Scope    *string `json:"scope,omitempty"`
	Resource *string `json:"resource,omitempty"`
	Value    *string `json:"value,omitempty"`
	Request  *string `json:"request,omitempty"`
	Op       *string `json:"op,omitempty"`
	Observed *string `json:"observed,omitempty"`
	Lease    *string `json:"lease,omitempty"`
	Duration *string `json:"duration,omitempty"`
	// Count is what --suggest writes; it is allowed and ignored.
	Count json.RawMessage `json:"count,omitempty"`

	re    *regexp.Regexp
	where map[string]*regexp.Regexp
}

// The kinds a rule may give besides the model's.
const (
	kindOutcome = "outcome"
	kindBinding = "binding"
	kindDropped = "dropped"
	kindIgnore  = "ignore"
)

// ObsMap says what the resource was seen to do: a field and its values,
// rules tried after them, and an outcome by default.
type ObsMap struct {
	Field   string             `json:"field,omitempty"`
	Values  map[string]Outcome `json:"values,omitempty"`
	Rules   []ObsRule          `json:"rules,omitempty"`
	Default Outcome            `json:"default,omitempty"`
}

// ObsRule is one rule of observed: a text that equals Is or is matched
// by Match (on the observed field, or Field) gives Observed.
type ObsRule struct {
	Is       *string `json:"is,omitempty"`
	Match    string  `json:"match,omitempty"`
	Field    string  `json:"field,omitempty"`
	Observed Outcome `json:"observed"`
	re       *regexp.Regexp
}

// Outcome is what the resource was observed to do with a request.
type Outcome string

// The three observed outcomes of the contract.
const (
	Applied    Outcome = "applied"
	Rejected   Outcome = "rejected"
	Suppressed Outcome = "suppressed"
)

func (o Outcome) valid() bool { return o == Applied || o == Rejected || o == Suppressed }

// ReadMapping reads a mapping file strictly: an unknown field, a kind or
// an outcome the model does not have, a regular expression that does not
// compile, or no kind rule at all is an error that names its key.
func ReadMapping(r io.Reader) (*Mapping, error) {
	dec := json.NewDecoder(io.LimitReader(r, 1<<20))
	dec.DisallowUnknownFields()
	var m Mapping
	if err := dec.Decode(&m); err != nil {
		switch {
		case errors.Is(err, io.EOF):
			return nil, fmt.Errorf("mapping: the file is empty: give a JSON object, " +
				"as {\"kinds\": [{\"is\": \"lease granted\", \"kind\": \"acquire\"}]}")
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, fmt.Errorf("mapping: the JSON is cut short (a bracket or a quote is not closed)")
		}
		return nil, fmt.Errorf("mapping: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("mapping: more than one JSON value in the file: give one object")
	}
	if err := m.Check(); err != nil {
		return nil, err
	}
	return &m, nil
}

// Check reports what makes the mapping unusable, naming the key, and
// compiles its regular expressions.
func (m *Mapping) Check() error {
	rules := m.Kind != nil || len(m.Kinds) > 0
	if err := m.Keys.check("mapping"); err != nil {
		return err
	}
	for i := range m.Files {
		s := &m.Files[i]
		where := fmt.Sprintf("mapping: files[%d]", i)
		if s.Match == "" {
			return fmt.Errorf("%s: match is required (a glob of file names, as \"zk-*.log\")", where)
		}
		if _, err := path.Match(s.Match, ""); err != nil {
			return fmt.Errorf("%s: match %q is not a glob: %v", where, s.Match, err)
		}
		if err := s.Keys.check(where); err != nil {
			return err
		}
		rules = rules || s.Kind != nil || len(s.Kinds) > 0
	}
	if !rules {
		return fmt.Errorf("mapping: no kind rule: give kinds, as [{\"is\": \"lease granted\", \"kind\": \"acquire\"}], " +
			"or kind, as {\"field\": \"msg\", \"values\": {\"lease granted\": \"acquire\"}}")
	}
	return nil
}

func (k *Keys) check(where string) error {
	if k.Kind != nil {
		if len(k.Kind.Values) == 0 {
			return fmt.Errorf("%s: kind needs values, as {\"field\": \"msg\", \"values\": {\"lease granted\": \"acquire\"}}", where)
		}
		for v, kind := range k.Kind.Values {
			if !modelKind(kind) && !extraKind(kind) {
				return fmt.Errorf("%s: kind.values[%q] is %q, not a kind (%s)", where, v, kind, kindNames())
			}
		}
	}
	for i := range k.Kinds {
		if err := k.Kinds[i].compile(fmt.Sprintf("%s: kinds[%d]", where, i)); err != nil {
			return err
		}
	}
	if o := k.Observed; o != nil {
		for v, out := range o.Values {
			if !out.valid() {
				return fmt.Errorf("%s: observed.values[%q] is %q: use applied, rejected or suppressed", where, v, out)
			}
		}
		for i := range o.Rules {
			r := &o.Rules[i]
			at := fmt.Sprintf("%s: observed.rules[%d]", where, i)
			if !r.Observed.valid() {
				return fmt.Errorf("%s: observed is %q: use applied, rejected or suppressed", at, r.Observed)
			}
			if (r.Is == nil) == (r.Match == "") {
				return fmt.Errorf("%s: give one of is and match", at)
			}
			if r.Match != "" {
				re, err := compile(r.Match)
				if err != nil {
					return fmt.Errorf("%s: match: %v", at, err)
				}
				r.re = re
			}
		}
		if o.Default != "" && !o.Default.valid() {
			return fmt.Errorf("%s: observed.default is %q: use applied, rejected or suppressed", where, o.Default)
		}
		if o.Field == "" && len(o.Rules) == 0 && o.Default == "" {
			return fmt.Errorf("%s: observed needs a field, rules or a default", where)
		}
		if len(o.Values) > 0 && o.Field == "" {
			return fmt.Errorf("%s: observed.values needs observed.field", where)
		}
	}
	for _, f := range k.Format {
		if f == Pattern && k.Pattern == "" {
			return fmt.Errorf("%s: format pattern needs a pattern", where)
		}
	}
	if k.Pattern != "" {
		re, err := compile(k.Pattern)
		if err != nil {
			return fmt.Errorf("%s: pattern: %v", where, err)
		}
		if re.NumSubexp() == 0 {
			return fmt.Errorf("%s: pattern has no named group: name each field, as (?<time>\\S+)", where)
		}
	}
	switch k.Rest {
	case "", "auto", "jsonl", "logfmt", "text":
	default:
		return fmt.Errorf("%s: rest is %q: use auto, jsonl, logfmt or text", where, k.Rest)
	}
	if k.Zone != "" {
		if _, err := loadZone(k.Zone); err != nil {
			return fmt.Errorf("%s: zone: %v", where, err)
		}
	}
	switch k.TimeUnit {
	case "", "s", "ms", "us", "ns":
	default:
		return fmt.Errorf("%s: time_unit is %q: use s, ms, us or ns", where, k.TimeUnit)
	}
	if k.Year != 0 && (k.Year < 1970 || k.Year > 9999) {
		return fmt.Errorf("%s: year %d is not a year", where, k.Year)
	}
	return nil
}

func (r *KindRule) compile(where string) error {
	if !modelKind(r.Kind) && !extraKind(r.Kind) {
		return fmt.Errorf("%s: kind %q is not a kind (%s)", where, r.Kind, kindNames())
	}
	if (r.Is == nil) == (r.Match == "") {
		return fmt.Errorf("%s: give one of is and match", where)
	}
	if r.Match != "" {
		re, err := compile(r.Match)
		if err != nil {
			return fmt.Errorf("%s: match: %v", where, err)
		}
		r.re = re
		if slices.Contains(re.SubexpNames(), "duration") && r.Kind != string(lab.Pause) {
			return fmt.Errorf("%s: a duration group is allowed on a pause rule only", where)
		}
		for _, g := range re.SubexpNames() {
			if g != "" && !slices.Contains(groupNames, g) {
				return fmt.Errorf("%s: match: group %q is not a fact (%s)", where, g, strings.Join(groupNames, ", "))
			}
		}
	}
	if r.Duration != nil && r.Kind != string(lab.Pause) {
		return fmt.Errorf("%s: a duration is allowed on a pause rule only", where)
	}
	if r.Duration != nil {
		if _, err := parseDuration(*r.Duration, r.Unit); err != nil {
			return fmt.Errorf("%s: duration: %v", where, err)
		}
	}
	switch r.Unit {
	case "", "s", "ms", "us", "ns":
	default:
		return fmt.Errorf("%s: unit is %q: use s, ms, us or ns", where, r.Unit)
	}
	if r.Observed != nil && !Outcome(*r.Observed).valid() && r.Kind != kindOutcome {
		// read through observed.values later; checked when the line is read
		_ = r
	}
	for f, pat := range r.Where {
		re, err := compile(pat)
		if err != nil {
			return fmt.Errorf("%s: where[%q]: %v", where, f, err)
		}
		if r.where == nil {
			r.where = map[string]*regexp.Regexp{}
		}
		r.where[f] = re
	}
	return nil
}

// groupNames are the facts a kind rule's named groups may set.
var groupNames = []string{"actor", "token", "scope", "resource", "value", "request", "op", "observed", "lease",
	"duration", "count", "since", "time", "host"}

// compile compiles a regular expression of the mapping, accepting the
// (?<name>…) spelling of named groups as well as Go's (?P<name>…).
func compile(s string) (*regexp.Regexp, error) {
	return regexp.Compile(s)
}

func modelKind(k string) bool { return slices.Contains(lab.Kinds(), lab.Kind(k)) }

func extraKind(k string) bool {
	return k == kindOutcome || k == kindBinding || k == kindDropped || k == kindIgnore
}

// Version1 reports whether the mapping uses only version 1's keys.
func (m *Mapping) Version1() bool {
	if len(m.Files) > 0 || len(m.Kinds) > 0 {
		return false
	}
	for _, f := range m.facts() {
		if !f.simple() {
			return false
		}
	}
	return true
}

func (k *Keys) facts() []*Fact {
	return []*Fact{k.Time, k.Actor, k.Token, k.Scope, k.Resource, k.Value, k.Request, k.Op, k.Host, k.Lease, k.Message}
}

// section returns the keys that apply to a file by its base name: the
// first matching section's over the top-level ones.
func (m *Mapping) section(base string) (*Keys, int) {
	for i := range m.Files {
		if ok, _ := path.Match(m.Files[i].Match, base); ok {
			return &m.Files[i].Keys, i
		}
	}
	return nil, -1
}

// JSON returns the mapping as an indented file, to be loaded again for
// the next incident.
func (m *Mapping) JSON() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(m) // a Mapping always marshals
	return b.Bytes()
}

func kindNames() string {
	names := make([]string, 0, 20)
	for _, k := range lab.Kinds() {
		names = append(names, string(k))
	}
	names = append(names, kindOutcome, kindBinding, kindDropped, kindIgnore)
	return strings.Join(names, ", ")
}

// loadZone reads a zone as "+01:00", "+0100", "Z", "UTC" or an IANA name.
func loadZone(s string) (*time.Location, error) {
	if s == "" || s == "Z" || s == "UTC" {
		return time.UTC, nil
	}
	if off, ok := parseOffset(s); ok {
		return time.FixedZone(s, off), nil
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil, fmt.Errorf("%q is neither an offset (+01:00) nor a zone name the machine knows", s)
	}
	return loc, nil
}
