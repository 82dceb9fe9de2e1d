package logs

import (
	"fmt"
	"slices"

	"fencelab/lab"
)

// against judges each policy by the observed outcomes, the policies that
// agree with every one of them first.
func against(res *Result) []Verdict {
	var agree, disagree []Verdict
	for _, p := range lab.Policies() {
		v := verdict(res, p)
		if v.Agrees {
			agree = append(agree, v)
		} else {
			disagree = append(disagree, v)
		}
	}
	return append(agree, disagree...)
}

// Agrees reports whether a policy's decision is what was observed: an
// applied request was accepted (or, under fenced-racy, applied at its
// commit), a rejected one rejected, a suppressed one suppressed.
func Agrees(o Outcome, d lab.Decision) bool {
	switch o {
	case Applied:
		return d == lab.Accepted || d == lab.Applied
	case Rejected:
		return d == lab.Rejected
	case Suppressed:
		return d == lab.Suppressed
	}
	return false
}

func verdict(res *Result, p lab.Policy) Verdict {
	pi := lab.PolicyIndex(p)
	for _, ob := range res.Observed {
		st := res.Trace.Steps[ob.Step-1]
		if o := st.Outcomes[pi]; !Agrees(ob.Outcome, o.Decision) {
			step := ob.Step
			return Verdict{Policy: p, FirstDisagreement: &step, Words: disagreement(res, st, p, ob)}
		}
	}
	return Verdict{Policy: p, Agrees: true, Words: agreement(res, p)}
}

// disagreement says what the resource did and what the policy would have.
func disagreement(res *Result, st lab.Step, p lab.Policy, ob Observation) string {
	o := st.Outcomes[lab.PolicyIndex(p)]
	return fmt.Sprintf("at step %d (%s) the resource %s %s, which `%s` would have %s (%s)",
		st.Index, res.Sources[st.Index-1], ob.Outcome, what(res, st.Index), p, wouldHave(o.Decision), o.Reason)
}

func wouldHave(d lab.Decision) string {
	switch d {
	case lab.Accepted, lab.Applied:
		return "applied"
	case lab.Checked:
		return "only checked"
	case lab.Skipped:
		return "skipped"
	}
	return string(d)
}

// what names the request of a step: its token, else its actor's write.
func what(res *Result, step int) string {
	st := res.Trace.Steps[step-1]
	if st.Token != nil {
		if !tokenLogged(res, step) {
			return fmt.Sprintf("token %d (assumed: the line logs no token)", *st.Token)
		}
		return fmt.Sprintf("token %d", *st.Token)
	}
	if a := actorOf(res, step); a != "" {
		return a + "'s write"
	}
	return "the write"
}

// tokenLogged reports whether the step's request carries a token its
// line logged, following a deliver to its send.
func tokenLogged(res *Result, step int) bool {
	e := res.Scenario.Events[step-1]
	if e.Kind == lab.Deliver || e.Kind == lab.Commit {
		for _, s := range res.Scenario.Events[:step-1] {
			if s.Kind == lab.Send && s.ID == e.Request {
				return s.Token != nil
			}
		}
		return false
	}
	return e.Token != nil
}

// actorOf is the actor of a step's request, following a deliver to its send.
func actorOf(res *Result, step int) string {
	e := res.Trace.Steps[step-1].Event
	if e.Actor != "" || e.Request == "" {
		return e.Actor
	}
	for _, s := range res.Trace.Steps[:step-1] {
		if s.Event.Kind == lab.Send && s.Event.ID == e.Request {
			return s.Event.Actor
		}
	}
	return ""
}

// agreement says what a policy that matches every observation did wrong,
// if anything: the lesson of the incident.
func agreement(res *Result, p lab.Policy) string {
	if len(res.Observed) == 0 {
		return fmt.Sprintf("nothing observed contradicts `%s`: the logs record no outcome of the resource", p)
	}
	vs := res.Trace.Summary[p].Violations
	if len(vs) == 0 {
		return fmt.Sprintf("the resource behaved like `%s`, which breaks no invariant here", p)
	}
	return fmt.Sprintf("the resource behaved like `%s`: %s (step %d, %s)", p, violationWords(res, p, vs[0]), vs[0].Step, vs[0].Kind)
}

func violationWords(res *Result, p lab.Policy, v lab.Violation) string {
	w := what(res, v.Step)
	switch v.Kind {
	case lab.StaleOverwrite:
		if g, ok := greatestApplied(res, p, v.Step); ok {
			return fmt.Sprintf("it applied %s after it had applied %d", w, g)
		}
		return fmt.Sprintf("it applied %s after a greater token", w)
	case lab.SupersededWrite:
		return fmt.Sprintf("it applied %s after the lease service had granted a newer one", w)
	case lab.DuplicateApplied:
		return fmt.Sprintf("it applied %s although the same operation was already applied", w)
	case lab.ValidWriteRejected:
		return fmt.Sprintf("it refused %s although its writer held the lease", w)
	case lab.UnownedWrite:
		return fmt.Sprintf("it applied %s while its writer did not hold the lease", w)
	case lab.LostUpdate:
		return fmt.Sprintf("it applied %s, computed without an update applied since its read", w)
	}
	return string(v.Kind)
}

// greatestApplied is the greatest token the policy applied before step.
func greatestApplied(res *Result, p lab.Policy, step int) (int64, bool) {
	pi := lab.PolicyIndex(p)
	var tokens []int64
	for _, st := range res.Trace.Steps[:step-1] {
		if d := st.Outcomes[pi].Decision; (d == lab.Accepted || d == lab.Applied) && st.Token != nil {
			tokens = append(tokens, *st.Token)
		}
	}
	if len(tokens) == 0 {
		return 0, false
	}
	return slices.Max(tokens), true
}
