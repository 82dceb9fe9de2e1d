package views

import "fencelab/lab"

// Observed is what `fencelab probe` saw a real receiver do, beside what
// the model expects, as a saved run shows it.
type Observed struct {
	Target     string // the receiver's address, as the probe named it; never contacted
	Policy     lab.Policy
	Remember   string
	Mode       string
	Verdict    string // agree, disagree, not testable
	Divergence string
	Overrides  []string
	Orderings  string // for the every-ordering mode, a sentence
	Rows       []ObservedRow
}

// ObservedRow is one step: the receiver's columns are empty where it took
// no part.
type ObservedRow struct {
	Index              int
	Actor, Event       string
	Request            string
	Expected, Observed string
	Agree              bool
	First              bool // the first step that disagrees: highlighted
	Error              string
}

func (r ObservedRow) rowClass() string {
	switch {
	case r.First:
		return "observed-diverges observed-first"
	case r.Request != "" && !r.Agree:
		return "observed-diverges"
	case r.Request != "":
		return "observed-agrees"
	}
	return "observed-idle"
}

func (o *Observed) verdictClass() string {
	switch o.Verdict {
	case "agree":
		return "notice notice-ok"
	case "disagree":
		return "notice notice-bad"
	}
	return "notice notice-warn"
}

// runStyles are the style sheets of a saved run's page.
func runStyles(p RunPage) []string {
	if p.Observed != nil || p.Imported != nil {
		return []string{"css/diagram.css", "css/observed.css", "css/import.css"}
	}
	return []string{"css/diagram.css"}
}
