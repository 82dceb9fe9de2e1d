package lab

import (
	"bytes"
	"encoding/json"
)

// Outcomes holds a step's outcome under each policy, in the order of
// Policies. It marshals as a JSON object keyed by policy name.
type Outcomes [numPolicies]Outcome

// Of returns the outcome under policy p; the zero Outcome for an unknown policy.
func (o *Outcomes) Of(p Policy) Outcome {
	if i := PolicyIndex(p); i >= 0 {
		return o[i]
	}
	return Outcome{}
}

// PolicyIndex returns p's position in Policies, or -1.
func PolicyIndex(p Policy) int {
	for i, q := range policies {
		if q == p {
			return i
		}
	}
	return -1
}

// MarshalJSON writes the outcomes as an object in the order of Policies.
func (o Outcomes) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range policies {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + string(p) + `":`)
		out, err := json.Marshal(o[i])
		if err != nil {
			return nil, err
		}
		b.Write(out)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads outcomes written by MarshalJSON, so that a stored
// trace can be read back.
func (o *Outcomes) UnmarshalJSON(data []byte) error {
	var m map[Policy]Outcome
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	for i, p := range policies {
		o[i] = m[p]
	}
	return nil
}
