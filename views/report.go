// Package views renders the lab's pages with templ: the gallery, a replayed
// scenario with its per-step table, a saved run and the error pages.
package views

// Generated code records each .templ file's path relative to where templ
// ran; -path .. makes `go generate` agree with `templ generate -check` run
// from the repository root, as CI does.
//go:generate go tool templ generate -path ..

import (
	"slices"
	"strings"

	"fencelab/lab"
	"fencelab/views/diagram"
)

// Report is a replayed scenario as the pages show it: the scenario, its
// trace, and the policies the reader chose to compare.
type Report struct {
	Scenario *lab.Scenario
	Trace    *lab.Trace
	Policies []lab.Policy // the chosen ones, in the order of lab.Policies
	// Imported, for a saved import, is what the logs say the resource did:
	// its diagram then draws a policy's replay beside the logs' outcomes.
	Imported *diagram.Imported
	// Logs, for a saved import, says which policy the resource behaved
	// like, as the logs tell it: the embed's line under the verdicts.
	Logs string
	// ModelNote, when not empty, says whose the verdicts are where
	// something else ran too (a probe's receiver): the section is then
	// "The model's verdicts", with this sentence.
	ModelNote string
	// Unknown are the policy names the reader asked for that name no
	// policy: the page says it left them out.
	Unknown     []string
	UnknownMore int // names left out of Unknown, past the first few

	actors     map[string]int // actor name → order of first appearance
	actorList  []string
	resources  []string
	violations map[lab.Policy]map[int][]lab.Violation // policy → step → violations
	fresh      map[lab.Policy]map[int]lab.Freshness   // policy → step position → what its rmw request knew
}

// Facts are what the engine says of a trace beyond its steps that the
// pages show: the page's builder (the server's newReport) asks the engine
// once, and the views only format them.
type Facts struct {
	Resources []string                             // lab.ResourceNames
	Fresh     map[lab.Policy]map[int]lab.Freshness // lab.RMWFreshness, for each policy of the report
}

// NewReport prepares a report of the chosen policies from the engine's
// facts; the pages read the derived lookups (actor colours, violations by
// step) many times per row.
func NewReport(s *lab.Scenario, t *lab.Trace, chosen []lab.Policy, f Facts) *Report {
	r := &Report{Scenario: s, Trace: t, Policies: chosen, actors: map[string]int{}}
	for _, e := range s.Events {
		if _, seen := r.actors[e.Actor]; e.Actor != "" && !seen {
			r.actors[e.Actor] = len(r.actorList)
			r.actorList = append(r.actorList, e.Actor)
		}
	}
	r.resources = f.Resources
	r.violations = map[lab.Policy]map[int][]lab.Violation{}
	r.fresh = f.Fresh
	for _, p := range chosen {
		byStep := map[int][]lab.Violation{}
		for _, v := range t.Summary[p].Violations {
			byStep[v.Step] = append(byStep[v.Step], v)
		}
		r.violations[p] = byStep
	}
	return r
}

// Only is r showing the first n of its policies (an embed's), sharing its
// lookups.
func (r *Report) Only(n int) *Report {
	o := *r
	o.Policies = r.Policies[:min(n, len(r.Policies))]
	return &o
}

// actorClass is the CSS class of an actor's colour: one of eight, by the
// actor's order of first appearance, so an actor keeps its colour everywhere.
func (r *Report) actorClass(actor string) string {
	i, ok := r.actors[actor]
	if !ok {
		return "actor actor-none"
	}
	return "actor actor-" + itoa(i%8)
}

// colourOrder lists the actors by their colour index, for the diagram.
func (r *Report) colourOrder() []string {
	out := make([]string, len(r.actors))
	for name, i := range r.actors {
		if i < len(out) {
			out[i] = name
		}
	}
	return out
}

// disagree reports whether the chosen policies decided a step differently.
func (r *Report) disagree(st lab.Step) bool {
	for _, p := range r.Policies {
		if st.Outcomes.Of(p).Decision != st.Outcomes.Of(r.Policies[0]).Decision {
			return true
		}
	}
	return false
}

// skipped reports whether a step was skipped (the same under every policy).
func (r *Report) skipped(st lab.Step) bool {
	return len(r.Policies) > 0 && st.Outcomes.Of(r.Policies[0]).Decision == lab.Skipped
}

// changed reports whether the value of resource res under policy p changed
// at step i (0-based), so the table can point at the write that took effect.
func (r *Report) changed(i int, p lab.Policy, res string) bool {
	now := r.Trace.Steps[i].Outcomes.Of(p)
	if i == 0 {
		return now.Values[res] != nil
	}
	before := r.Trace.Steps[i-1].Outcomes.Of(p)
	return !sameString(before.Values[res], now.Values[res]) || !sameInt(before.Tokens[res], now.Tokens[res])
}

// violated lists the violations of policy p at step n (1-based).
func (r *Report) violated(p lab.Policy, n int) []lab.Violation {
	return r.violations[p][n]
}

// finalTokens are the tokens that carried each resource's final value.
func (r *Report) finalTokens(p lab.Policy) map[string]*int64 {
	if len(r.Trace.Steps) == 0 {
		return nil
	}
	return r.Trace.Steps[len(r.Trace.Steps)-1].Outcomes.Of(p).Tokens
}

// showScope and showResource hide a field that can only have one value.
// stale says how stale the rmw request step i decided under p was: "stale:
// read v0, now v1"; "" for a fresh or plain write.
func (r *Report) stale(p lab.Policy, i int) string { return r.fresh[p][i].Describe() }

func (r *Report) showScope() bool    { return len(r.Scenario.Scopes) > 1 }
func (r *Report) showResource() bool { return len(r.resources) > 1 }

// chosen reports whether the reader picked policy p.
func (r *Report) chosen(p lab.Policy) bool { return slices.Contains(r.Policies, p) }

func sameString(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
func sameInt(a, b *int64) bool     { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// actorRole says what an actor does in the run, in a few words: the kinds
// of its events, in order, each once ("acquire, read, pause, write").
func (r *Report) actorRole(a string) string {
	var kinds []string
	for _, e := range r.Scenario.Events {
		if e.Actor == a && !slices.Contains(kinds, string(e.Kind)) {
			kinds = append(kinds, string(e.Kind))
		}
	}
	return strings.Join(kinds, ", ")
}
