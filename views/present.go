package views

import (
	"strconv"

	"fencelab/lab"
)

// PresentPage is a scenario shown one step at a time, for a classroom: a
// built-in or a saved run, its diagram under one policy, and optionally
// predict mode, where the audience guesses each write's fate first.
type PresentPage struct {
	Report  *Report
	Diagram lab.Policy // the policy of the diagram, and of the predictions
	// Page is the page presented, "/scenarios/NAME" or "/r/ID"; the
	// presentation lives at Page + "/present".
	Page    string
	Predict bool
}

// exit is the page presented, with the same choices; present.js adds the
// current step's fragment.
func (p PresentPage) exit() string {
	return withQuery(p.Page, pageQuery(p.Report.Policies, p.Diagram))
}

// action is where the presentation's settings form goes: itself.
func (p PresentPage) action() string { return p.Page + "/present" }

// question is what predict mode asks (nothing outside it) before step st is revealed, and the
// answer under the diagram's policy. Only writes and deliveries that the
// resource accepts or rejects are asked about: for the other outcomes
// (suppressed, aborted, dropped, checked) "accepted or rejected?" has no
// fair answer, and they are shown at once.
func (p PresentPage) question(st lab.Step) (ask string, answer lab.Decision) {
	o := st.Outcomes.Of(p.Diagram)
	if !p.Predict || o.Decision != lab.Accepted && o.Decision != lab.Rejected {
		return "", ""
	}
	e := st.Event
	var what string
	switch e.Kind {
	case lab.Write:
		what = e.Actor + "’s write of “" + deref(e.Value) + "”"
	case lab.Deliver:
		what = "request " + e.Request
	default:
		return "", ""
	}
	return "Under " + string(p.Diagram) + ", is " + what + " " + withToken(st.Token) + " accepted or rejected?", o.Decision
}

func withToken(t *int64) string {
	if t == nil {
		return "without a token"
	}
	return "with token " + strconv.FormatInt(*t, 10)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// stepLink is the fragment of step n.
func stepLink(n int) string { return "#step-" + itoa(n) }
