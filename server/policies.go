package server

import (
	"slices"

	"fencelab/lab"
	"fencelab/views/paths"
)

// defaultPolicies are compared when the reader chose none.
var defaultPolicies = lab.DefaultPolicies()

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
func policyQuery(chosen []lab.Policy) string { return paths.Link("", "", linkPolicies(chosen)) }

// linkPolicies is the choice a link keeps: none for the default.
func linkPolicies(chosen []lab.Policy) []lab.Policy {
	if slices.Equal(chosen, defaultPolicies) {
		return nil
	}
	return chosen
}

// unknownPolicies are the names in ?p= (or a form's p fields) and ?d= that
// name no policy, each once, for the page to say it left them out.
func unknownPolicies(names []string, d string) []string {
	var out []string
	for _, n := range append(slices.Clone(names), d) {
		if n != "" && lab.PolicyIndex(lab.Policy(n)) < 0 && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
