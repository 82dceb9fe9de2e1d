package server

import (
	"net/url"
	"slices"

	"fencelab/lab"
)

// defaultPolicies are compared when the reader chose none.
var defaultPolicies = []lab.Policy{lab.Unfenced, lab.Fenced}

// choosePolicies reads the policies named in ?p= (or a form's p fields) in
// the order of lab.Policies, ignoring unknown names; none gives the default.
func choosePolicies(names []string) []lab.Policy {
	var chosen []lab.Policy
	for _, p := range lab.Policies() {
		if slices.Contains(names, string(p)) {
			chosen = append(chosen, p)
		}
	}
	if len(chosen) == 0 {
		return slices.Clone(defaultPolicies)
	}
	return chosen
}

// policyQuery is the query that keeps a choice in a link: empty for the default.
func policyQuery(chosen []lab.Policy) string {
	if slices.Equal(chosen, defaultPolicies) {
		return ""
	}
	q := url.Values{}
	for _, p := range chosen {
		q.Add("p", string(p))
	}
	return "?" + q.Encode()
}
