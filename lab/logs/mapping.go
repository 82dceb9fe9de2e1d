package logs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"fencelab/lab"
)

// Mapping says where each fact of an event is in a log line. Every field
// name may be a dotted path into nested JSON. Only Kind is required.
type Mapping struct {
	Time     string  `json:"time,omitempty"`
	Actor    string  `json:"actor,omitempty"`
	Kind     KindMap `json:"kind"`
	Token    string  `json:"token,omitempty"`
	Scope    string  `json:"scope,omitempty"`
	Resource string  `json:"resource,omitempty"`
	Value    string  `json:"value,omitempty"`
	Request  string  `json:"request,omitempty"`
	Op       string  `json:"op,omitempty"`
	Observed *ObsMap `json:"observed,omitempty"`
	Host     string  `json:"host,omitempty"`
}

// KindMap names the field that tells what a line is, and which of its
// values are events of which kind. A value not listed is not an event.
type KindMap struct {
	Field  string              `json:"field"`
	Values map[string]lab.Kind `json:"values"`
}

// ObsMap names the field that says what the resource was seen to do, and
// which of its values mean which outcome.
type ObsMap struct {
	Field  string             `json:"field"`
	Values map[string]Outcome `json:"values"`
}

// Outcome is what the resource was observed to do with a request.
type Outcome string

// The three observed outcomes of the contract.
const (
	Applied    Outcome = "applied"
	Rejected   Outcome = "rejected"
	Suppressed Outcome = "suppressed"
)

// ReadMapping reads a mapping file strictly: an unknown field, a kind or
// an outcome the model does not have, or a missing kind is an error that
// names it.
func ReadMapping(r io.Reader) (*Mapping, error) {
	dec := json.NewDecoder(io.LimitReader(r, 1<<20))
	dec.DisallowUnknownFields()
	var m Mapping
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("mapping: %w", err)
	}
	if err := m.Check(); err != nil {
		return nil, err
	}
	return &m, nil
}

// Check reports what makes the mapping unusable, naming the field.
func (m *Mapping) Check() error {
	if m.Kind.Field == "" || len(m.Kind.Values) == 0 {
		return fmt.Errorf("mapping: kind needs a field and values, as {\"field\": \"msg\", \"values\": {\"lease granted\": \"acquire\"}}")
	}
	for v, k := range m.Kind.Values {
		if !slices.Contains(lab.Kinds(), k) {
			return fmt.Errorf("mapping: kind.values[%q] is %q, not a kind of the model (%s)", v, k, kindNames())
		}
	}
	if m.Observed != nil {
		if m.Observed.Field == "" {
			return fmt.Errorf("mapping: observed needs a field")
		}
		for v, o := range m.Observed.Values {
			if o != Applied && o != Rejected && o != Suppressed {
				return fmt.Errorf("mapping: observed.values[%q] is %q: use applied, rejected or suppressed", v, o)
			}
		}
	}
	return nil
}

// Fields lists the log fields the mapping reads, each once, in a fixed
// order, for checking them against what the logs have.
func (m *Mapping) Fields() []string {
	var out []string
	for _, f := range []string{m.Time, m.Actor, m.Kind.Field, m.Token, m.Scope, m.Resource, m.Value, m.Request, m.Op, m.Host, m.observedField()} {
		if f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

func (m *Mapping) observedField() string {
	if m.Observed == nil {
		return ""
	}
	return m.Observed.Field
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
	names := make([]string, 0, 14)
	for _, k := range lab.Kinds() {
		names = append(names, string(k))
	}
	return strings.Join(names, ", ")
}
