package logs

import "fencelab/lab"

// Saved is what a saved import keeps beside its scenario: what the logs
// say the resource did, each policy's verdict against it, the gaps, the
// clocks and, with a skew, the orderings the clocks allow. Source is
// "import", which tells it from a probe's observation.
type Saved struct {
	Source    string           `json:"source"` // "import"
	Files     []string         `json:"files"`
	Sources   []string         `json:"sources"` // each step's line
	Observed  []Observation    `json:"observed"`
	Against   []Verdict        `json:"against"`
	Gaps      []Gap            `json:"gaps"`
	Clocks    *Clocks          `json:"clocks,omitempty"`
	Inferred  []InferredEvent  `json:"inferred,omitempty"`
	Skew      string           `json:"skew,omitempty"`
	Orderings *lab.Exploration `json:"orderings,omitempty"`
	// After is the order the orderings were explored in (Result.After),
	// which a server needs to explore them again rather than take them on
	// trust.
	After [][]int `json:"after,omitempty"`
}

// ForSaving is the part of a result a saved run keeps.
func ForSaving(res *Result, files []string) Saved {
	s := Saved{Source: "import", Files: files, Sources: res.Sources, Observed: res.Observed, Against: res.Against,
		Gaps: res.Gaps, Inferred: res.Inferred, Orderings: res.Orderings}
	if len(res.Clocks.Offsets) > 0 || res.Clocks.Contradiction != nil {
		c := res.Clocks
		s.Clocks = &c
	}
	if res.Orderings != nil {
		s.Skew, s.After = res.Skew.String(), res.After
	}
	return s
}
