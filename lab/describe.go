package lab

import (
	"strconv"
	"strings"
)

// DescribeEvent renders an event's kind and fields in one short line, as
// in `write → result "old-result" token=41`. The actor and note are left to
// the caller.
func DescribeEvent(e Event) string {
	parts := []string{string(e.Kind)}
	add := func(s string) {
		if s != "" {
			parts = append(parts, s)
		}
	}
	switch r := e.Kind.rule(); {
	case r.sends:
		// The scope of a write is its grant's, shown by its token.
		if r.takes("id") {
			add(e.ID)
		}
		add("→ " + e.Resource)
	case r.namesRequest():
		add(e.Request)
	default:
		add(e.Scope)
		add(e.Resource)
	}
	if e.Value != nil {
		add(strconv.Quote(*e.Value))
	}
	if e.Op != "" {
		add("op=" + e.Op)
	}
	switch {
	case e.Token != nil:
		add("token=" + strconv.FormatInt(*e.Token, 10))
	case e.TokenNull:
		add("token=none")
	}
	if e.IsSplit() {
		add("split")
	}
	if e.IsRMW() {
		add("rmw")
	}
	return strings.Join(parts, " ")
}

// ReasonWithDecision is the outcome as one line that starts with its
// decision word: "rejected: 41 < 42 already accepted", "ok: A pauses; ...".
func ReasonWithDecision(o Outcome) string {
	if strings.HasPrefix(o.Reason, string(o.Decision)+":") {
		return o.Reason
	}
	return string(o.Decision) + ": " + o.Reason
}

// SortedNames returns the keys of a values or tokens map in order.
func SortedNames[V any](m map[string]V) []string { return sortedKeys(m) }

// ResourceNames lists a run's resources in name order: the scenario's or,
// failing that (a stored trace whose scenario declares none), those whose
// values the first step shows. The table and the diagram list them so.
func ResourceNames(s *Scenario, t *Trace) []string {
	if len(s.Resources) > 0 || len(t.Steps) == 0 || len(t.Policies) == 0 {
		return sortedKeys(s.Resources)
	}
	return sortedKeys(t.Steps[0].Outcomes.Of(t.Policies[0]).Values)
}
