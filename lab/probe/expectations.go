package probe

import (
	"fmt"

	"fencelab/lab"
)

// Expectation is what the probe asks of the receiver at one step and what
// the model says it must answer.
type Expectation struct {
	Request  string      // "POST /writes", "POST /grants" or "POST /restart"
	Expected Observation // the outcome, and the resource's value and token after it
	Reason   string      // the model's reason
}

// expectation adds what playing the step needs.
type expectation struct {
	Expectation
	resource string
	write    lab.Event // for a write or deliver: the request as the worker sent it
	expect   *int64    // for an rmw write under cas: its expect_version
}

// Expectations lists, by step index, the steps of a trace the receiver
// takes part in under policy, with the model's expectation: each write or
// delivered send that reaches it, each restart, and each grant under a
// policy that registers grants (fenced-register). The probe plays exactly
// these; a saved observation is checked against them.
func Expectations(t *lab.Trace, policy lab.Policy) map[int]Expectation {
	out := map[int]Expectation{}
	for i, x := range expectations(t, policy) {
		out[i] = x.Expectation
	}
	return out
}

func expectations(t *lab.Trace, policy lab.Policy) map[int]expectation {
	pi := lab.PolicyIndex(policy)
	out := map[int]expectation{}
	sends := map[string]lab.Event{}
	cond := newConditions(t, policy, pi)
	for i := range t.Steps {
		st := &t.Steps[i]
		o, e := st.Outcomes[pi], st.Event
		cond.step(st, o)
		x := expectation{Expectation: Expectation{Reason: o.Reason}}
		switch e.Kind {
		case lab.Send:
			sends[e.ID] = e
			continue
		case lab.Acquire:
			if !policy.Registers() || o.Decision != lab.Granted || st.Token == nil {
				continue
			}
			x.Request, x.Expected = "POST /grants", Observation{Outcome: "ok"}
		case lab.Restart:
			if e.Resource == "" {
				continue // a lease service restarts (model 3): the receiver takes no part
			}
			x.resource = e.Resource
			x.Request = "POST /restart"
			x.Expected = Observation{Outcome: "ok", Value: o.Values[e.Resource], Token: o.Tokens[e.Resource], Version: cond.version(e.Resource)}
		case lab.Write, lab.Deliver:
			want := expectedOutcome(o.Decision)
			if want == "" {
				continue
			}
			if e.Kind == lab.Deliver {
				id := e.Request
				e = sends[id]
				e.ID = id
			}
			x.write, x.resource, x.expect = e, e.Resource, cond.expect(e, e.ID, o.Decision)
			x.Request = "POST /writes"
			x.Expected = Observation{Outcome: want, Value: o.Values[e.Resource], Token: o.Tokens[e.Resource], Version: cond.version(e.Resource)}
		default:
			continue
		}
		out[st.Index] = x
	}
	return out
}

// IssuerMode is the mode of a saved issuer probe (probe --issuer): the
// scenario is the run's history, the Overrides its figures.
const IssuerMode = "issuer"

// CheckObserved checks a result posted to be saved against the trace of
// its scenario: every step it shows exists, and every expectation is the
// model's. It says what is wrong, or returns nil.
func CheckObserved(t *lab.Trace, r *Result) error {
	if err := CheckPolicy(r.Policy); err != nil {
		return err
	}
	if r.Mode == IssuerMode && len(r.Steps) > 0 {
		return fmt.Errorf("mode %q: an issuer probe has no steps of the receiver", r.Mode)
	}
	if r.Mode != "sequential" && r.Mode != "orderings" && r.Mode != IssuerMode {
		return fmt.Errorf("mode %q: only a sequential probe, one ordering or an issuer's run can be saved", r.Mode)
	}
	if r.Verdict != Agree && r.Verdict != Disagree && r.Verdict != NotTestable {
		return fmt.Errorf("verdict %q: use agree, disagree or not testable", r.Verdict)
	}
	want := Expectations(t, r.Policy)
	last := 0
	for _, st := range r.Steps {
		x, ok := want[st.Index]
		switch {
		case st.Index <= last:
			return fmt.Errorf("step %d: steps must come in order, each once", st.Index)
		case !ok:
			return fmt.Errorf("step %d: the receiver takes no part in it under %s", st.Index, r.Policy)
		case st.Expected == nil || (st.Request != x.Request && st.Request != r.SQL.RequestName(x.Request)) || !same(&x.Expected, st.Expected):
			return fmt.Errorf("step %d: the expected column is not the model's (%s %s)", st.Index, x.Request, ObservationText(&x.Expected))
		case st.Observed == nil:
			return fmt.Errorf("step %d: nothing observed", st.Index)
		}
		last = st.Index
	}
	return nil
}

// ForSaving is the result as --save posts it: the steps the receiver took
// part in, without their events (the saved scenario has them), and for
// the every-ordering mode the steps of the first ordering that disagreed.
func ForSaving(r *Result) *Result {
	c := *r
	steps := r.Steps
	if r.Orderings != nil {
		o := *r.Orderings
		steps, o.FirstSteps = o.FirstSteps, nil
		c.Orderings = &o
	}
	c.Steps = nil
	for _, st := range steps {
		if st.Expected != nil {
			st.Event = lab.Event{}
			c.Steps = append(c.Steps, st)
		}
	}
	return &c
}
