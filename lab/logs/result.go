package logs

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"fencelab/lab"
)

// Result is what an import found: the scenario, what the resource was
// seen to do against each policy, what the logs leave unsaid, and, with
// a skew, every ordering the clocks allow.
type Result struct {
	Scenario  *lab.Scenario    `json:"scenario"`
	Observed  []Observation    `json:"observed"`
	Against   []Verdict        `json:"against"`
	Gaps      []Gap            `json:"gaps"`
	Orderings *lab.Exploration `json:"orderings"`
	Legend    []Rename         `json:"legend,omitempty"`
	Problems  []Problem        `json:"problems,omitempty"`

	// Trace is the replay of Scenario.
	Trace *lab.Trace `json:"-"`
	// Sources names each step's line, Sources[i] for step i+1.
	Sources []string `json:"-"`
	// Lines read, lines that were no event, and malformed lines (Problems
	// keeps the first hundred).
	Lines, NonEvents, ProblemCount int `json:"-"`
}

// Observation is what the resource was seen to do at one step.
type Observation struct {
	Step    int     `json:"step"`
	Outcome Outcome `json:"outcome"`
}

// Verdict says whether a policy's decisions agree with every observed
// outcome, and where they first do not.
type Verdict struct {
	Policy            lab.Policy `json:"policy"`
	Agrees            bool       `json:"agrees"`
	FirstDisagreement *int       `json:"first_disagreement"`
	Words             string     `json:"words"`
}

// Gap is something the logs do not say that the diagnosis needs.
type Gap struct {
	Kind    string   `json:"kind"`
	Sources []string `json:"sources"`
	Words   string   `json:"words"`
}

// Rename records a name the model refuses and the short name used instead.
type Rename struct {
	Field    string `json:"field"` // actor, scope, resource, request or op
	Name     string `json:"name"`
	Original string `json:"original"`
}

// Error lists every reason an import produced no scenario.
type Error struct {
	Reasons []string
}

func (e *Error) Error() string { return strings.Join(e.Reasons, "\n") }

// Finish builds the scenario from the events read and judges it.
func (im *Importer) Finish(ctx context.Context) (*Result, error) {
	if err := im.refusal(); err != nil {
		return nil, err
	}
	b := &builder{im: im, events: im.ordered()}
	b.matchRequests()
	if len(b.events) == 0 {
		return nil, b.nothingLeft()
	}
	s, err := b.scenario()
	if err != nil {
		return nil, err
	}
	res := &Result{Scenario: s, Trace: lab.Replay(s), Legend: b.legend, Gaps: b.gaps,
		Problems: im.problems, Lines: im.lines, NonEvents: im.nonEvents, ProblemCount: im.nProblems}
	for _, e := range b.events {
		res.Sources = append(res.Sources, e.source)
	}
	res.Observed = observations(b.events)
	res.Against = against(res)
	res.Gaps = append(res.Gaps, b.lineGaps()...)
	res.Gaps = append(res.Gaps, unordered(b.events, im.opt, b.sendOf)...)
	if res.Gaps == nil {
		res.Gaps = []Gap{} // the JSON lists no gap as [], not null
	}
	if im.opt.Explore {
		opt := lab.ExploreOptions{Budget: im.opt.Budget, After: after(b.events, im.opt.Skew)}
		res.Orderings = lab.Explore(ctx, s, opt)
	}
	return res, nil
}

// refusal is why the events read make no scenario, or nil.
func (im *Importer) refusal() error {
	var reasons []string
	if im.opt.Strict {
		for _, p := range im.problems {
			reasons = append(reasons, p.String())
		}
		if im.nProblems > len(im.problems) {
			reasons = append(reasons, fmt.Sprintf("and %d more malformed lines", im.nProblems-len(im.problems)))
		}
	}
	missing := im.missingFields()
	if !im.found[im.m.Kind.Field] && im.lines > 0 {
		reasons = append(reasons, missing...)
	} else {
		for _, msg := range missing {
			im.problems = append(im.problems, Problem{Source: "mapping", Message: msg})
		}
	}
	switch {
	case len(im.files) > 1 && im.m.Time == "":
		reasons = append(reasons, "several files need a time field in the mapping: without it their lines cannot be put in one order")
	case im.seen == 0:
		reasons = append(reasons, im.noEvent())
	case im.seen > lab.MaxEvents:
		reasons = append(reasons, fmt.Sprintf("%d events, the model allows %d: import a shorter window with --since and --until", im.seen, lab.MaxEvents))
	}
	if len(reasons) == 0 {
		return nil
	}
	if !im.opt.Strict {
		for _, p := range im.problems {
			reasons = append(reasons, p.String())
		}
	}
	return &Error{Reasons: reasons}
}

// missingFields names the mapped fields no line has.
func (im *Importer) missingFields() []string {
	var out []string
	for _, f := range im.m.Fields() {
		if !im.found[f] && im.lines > 0 {
			out = append(out, fmt.Sprintf("the mapping names field %q, which no line has (fields seen: %s)", f, im.seenKeys()))
		}
	}
	return out
}

func (im *Importer) seenKeys() string {
	keys := make([]string, 0, len(im.keys))
	for k := range im.keys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ", ")
}

func (im *Importer) noEvent() string {
	if im.lines == 0 {
		return "no event: the input has no line of text"
	}
	vals := make([]string, 0, len(im.kindSeen))
	for v := range im.kindSeen {
		vals = append(vals, fmt.Sprintf("%q", v))
	}
	sort.Strings(vals)
	return fmt.Sprintf("no event: %d lines read, none whose %q is one of the mapping's kind values (values seen: %s)",
		im.lines, im.m.Kind.Field, strings.Join(vals, ", "))
}

// nothingLeft explains an import whose every event was a deliver of a
// request no send names.
func (b *builder) nothingLeft() error {
	reasons := []string{"no event left: every event line is a deliver whose send is not in the logs (a worker's log may be missing)"}
	for _, g := range b.gaps {
		reasons = append(reasons, strings.Join(g.Sources, ", ")+": "+g.Words)
	}
	return &Error{Reasons: reasons}
}

// ordered returns the events in time order, ties in input order (files
// in the order given, then lines).
func (im *Importer) ordered() []*rawEvent {
	evs := slices.Clone(im.events)
	slices.SortStableFunc(evs, func(a, b *rawEvent) int { return a.at.Compare(b.at) })
	return evs
}

// observations lists each step's observed outcome.
func observations(evs []*rawEvent) []Observation {
	out := []Observation{}
	for i, e := range evs {
		if e.observed != "" {
			out = append(out, Observation{Step: i + 1, Outcome: e.observed})
		}
	}
	return out
}
