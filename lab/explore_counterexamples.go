package lab

import "slices"

// Reordering is one ordering of an exploration as a scenario.
type Reordering struct {
	Order    []int     // as Counterexample.Order
	Scenario *Scenario // s reordered, as Reorder gives it
}

// Counterexamples reorders s once for each distinct ordering of x's
// counterexamples, in the order of x.Policies: the scenarios a page offers
// to save.
func (x *Exploration) Counterexamples(s *Scenario) ([]Reordering, error) {
	var out []Reordering
	for _, pe := range x.Policies {
		c := pe.Counterexample
		if c == nil || slices.ContainsFunc(out, func(r Reordering) bool { return slices.Equal(r.Order, c.Order) }) {
			continue
		}
		rs, err := x.Reorder(s, c.Order)
		if err != nil {
			return nil, err
		}
		out = append(out, Reordering{Order: c.Order, Scenario: rs})
	}
	return out, nil
}
