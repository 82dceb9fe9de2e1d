package views

import "fencelab/views/export"

// ComparePage sets two runs or built-ins side by side (/compare?a=&b=):
// the events that differ, and per policy the verdicts and each step's
// decision. Without both, or with one that names nothing, it is the form
// with what went wrong.
type ComparePage struct {
	A, B  string // as asked: a built-in's name or "r/ID"
	C     *export.Comparison
	Error string
}

// summary says how much differs, in words.
func (p ComparePage) summary() string {
	ev, vd, st := p.C.Differs()
	if ev == 0 && st == 0 {
		return "The two runs have the same events and the same decisions."
	}
	return plural(ev, "event") + " of " + itoa(len(p.C.Events)) + ", " + plural(vd, "verdict") + " of " + itoa(len(p.C.Verdicts)) +
		" and " + plural(st, "step") + " of " + itoa(len(p.C.Steps)) + " differ."
}
