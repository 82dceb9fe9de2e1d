package logs

import (
	"context"
	"strings"
	"time"

	"fencelab/lab"
)

// Result is what an import found: the scenario, what the resource was
// seen to do against each policy, what the logs leave unsaid, and, with
// a skew, every ordering the clocks allow.
type Result struct {
	Scenario   *lab.Scenario    `json:"scenario"`
	Observed   []Observation    `json:"observed"`
	Against    []Verdict        `json:"against"`
	Gaps       []Gap            `json:"gaps"`
	Orderings  *lab.Exploration `json:"orderings"`
	Legend     []Rename         `json:"legend"`
	Problems   []Problem        `json:"problems"`
	Files      []FileStats      `json:"files"`
	Clocks     Clocks           `json:"clocks"`
	Inferred   []InferredEvent  `json:"inferred"`
	Duplicates []Duplicate      `json:"duplicates"`
	Drops      []Drop           `json:"drops"`
	Marks      []Mark           `json:"marks"`

	// Trace is the replay of Scenario.
	Trace *lab.Trace `json:"-"`
	// Sources names each step's line, Sources[i] for step i+1.
	Sources []string `json:"-"`
	// Lines read, lines that were no event, and malformed lines (Problems
	// keeps the first hundred).
	Lines, NonEvents, ProblemCount int `json:"-"`
	// Skew is the --skew the orderings were explored with.
	Skew time.Duration `json:"-"`
	// After is the order the logs and the skew give the events, as
	// lab.ExploreOptions.After takes it: the orderings explored are those
	// it allows. Set when the import explored (Options.Explore).
	After [][]int `json:"-"`

	inferredSteps map[int]bool
	defaultSteps  map[int]bool
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

// Gap is something the logs do not say that the diagnosis needs, or
// something the import inferred, shifted, merged or left out.
type Gap struct {
	Kind    string   `json:"kind"`
	Sources []string `json:"sources"`
	Words   string   `json:"words"`
}

// Rename records a name the model refuses and the short name used
// instead, or an incarnation of a crashed actor.
type Rename struct {
	Field       string `json:"field"` // actor, scope, resource, request or op
	Name        string `json:"name"`
	Original    string `json:"original"`
	Incarnation int    `json:"incarnation,omitempty"`
	Since       string `json:"since,omitempty"`
}

// Clocks are the offsets the import estimated, or the contradiction that
// kept them at zero.
type Clocks struct {
	Offsets       []Offset       `json:"offsets"`
	Contradiction *Contradiction `json:"contradiction"`
}

// Offset is the amount added to a host's logged times, and why.
type Offset struct {
	Host     string   `json:"host"`
	OffsetMS float64  `json:"offset_ms"`
	Sources  []string `json:"sources"`
	Words    string   `json:"words"`
}

// Contradiction names the lines whose constraints cannot all hold.
type Contradiction struct {
	Sources []string `json:"sources"`
	Words   string   `json:"words"`
}

// InferredEvent is a step the logs imply but do not log.
type InferredEvent struct {
	Step    int      `json:"step"`
	Kind    lab.Kind `json:"kind"`
	Sources []string `json:"sources"`
	Words   string   `json:"words"`
}

// Duplicate is an event line logged twice.
type Duplicate struct {
	Source string `json:"source"`
	SameAs string `json:"same_as"`
}

// Drop is a notice that the log pipeline dropped lines, and its window.
type Drop struct {
	Source string    `json:"source"`
	Count  int       `json:"count"`
	From   time.Time `json:"from"`
	To     time.Time `json:"to"`
}

// Mark is a step the model refused or skipped under some policy.
type Mark struct {
	Step   int    `json:"step"`
	Mark   string `json:"mark"`
	Reason string `json:"reason"`
}

// Error lists every reason an import produced no scenario.
type Error struct {
	Reasons []string
}

func (e *Error) Error() string { return strings.Join(e.Reasons, "\n") }

// result builds the scenario and judges it.
func (p *pipeline) result(ctx context.Context) (*Result, error) {
	b := p.nameAll()
	s, err := p.scenario(b)
	if err != nil {
		return nil, err
	}
	im := p.im
	res := &Result{Scenario: s, Trace: lab.Replay(s), Legend: b.legend, Problems: im.problems,
		Lines: im.lines, NonEvents: im.nonEvents, ProblemCount: im.nProblems, Skew: im.opt.Skew,
		inferredSteps: map[int]bool{}, defaultSteps: map[int]bool{}}
	for i, e := range p.events {
		res.Sources = append(res.Sources, p.src(e))
		if e.inferred || e.computed {
			res.inferredSteps[i+1] = true
		}
		if e.byDefault {
			res.defaultSteps[i+1] = true
		}
	}
	for _, f := range im.files {
		res.Files = append(res.Files, f.stats)
	}
	for _, e := range p.events {
		if !e.inferred {
			im.files[e.file].stats.Events++ // a computed pause is its line's too
		}
	}
	for i, f := range im.files {
		res.Files[i] = f.stats
	}
	res.Observed = observations(p.events)
	res.Against = against(res)
	res.Gaps = append(res.Gaps, p.gaps...)
	res.Gaps = append(res.Gaps, p.lineGaps()...)
	res.Gaps = append(res.Gaps, p.unordered()...)
	if res.Gaps == nil {
		res.Gaps = []Gap{} // the JSON lists no gap as [], not null
	}
	res.Clocks = Clocks{Offsets: []Offset{}, Contradiction: p.contradict}
	for _, h := range p.hosts {
		if o := p.offsetWhy[h]; o != nil {
			res.Clocks.Offsets = append(res.Clocks.Offsets, *o)
		}
	}
	res.Inferred = p.inferredList()
	res.Legend, res.Problems = orEmpty(res.Legend), orEmpty(res.Problems)
	res.Duplicates = orEmpty(p.duplicates)
	res.Drops = orEmpty(p.drops)
	res.Marks = marks(res.Trace)
	if im.opt.Explore {
		res.After = p.after()
		res.Orderings = lab.Explore(ctx, s, lab.ExploreOptions{Budget: im.opt.Budget, After: res.After})
	}
	return res, nil
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// marks lists the steps refused or skipped under any policy.
func marks(tr *lab.Trace) []Mark {
	out := []Mark{}
	for _, st := range tr.Steps {
		var m *Mark
		for _, p := range lab.Policies() {
			o := st.Outcomes.Of(p)
			if o.Decision == lab.Skipped {
				m = &Mark{Step: st.Index, Mark: "skipped", Reason: o.Reason}
				break
			}
			if o.Decision == lab.Refused && m == nil {
				m = &Mark{Step: st.Index, Mark: "refused", Reason: o.Reason}
			}
		}
		if m != nil {
			if m.Reason == "" {
				m.Reason = st.Warning
			}
			out = append(out, *m)
		}
	}
	return out
}

// observations lists each step's observed outcome.
func observations(evs []*ev) []Observation {
	out := []Observation{}
	for i, e := range evs {
		if e.observed != "" && (e.kind == lab.Write || e.kind == lab.Deliver) {
			out = append(out, Observation{Step: i + 1, Outcome: e.observed})
		}
	}
	return out
}
