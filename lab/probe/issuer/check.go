package issuer

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// Run says what the checker needs besides the history: the run's shape,
// as the report shows it.
type Run struct {
	Issuer         string   // the issuer as given (passwords hidden)
	Kind           string   // etcd, zk, redis, sql
	Lock           string   // the lock's name
	Version        string   // the issuer's version, where it tells it
	StartedByProbe bool     // --start
	StartUnix      float64  // the wall clock at time 0
	Workers        int      // --workers
	TTLAsked       float64  // --ttl, seconds
	TTL            float64  // the TTL the issuer granted, seconds
	Duration       float64  // --duration, seconds
	End            float64  // when the workers were stopped, seconds since time 0
	Nemeses        []string // the faults into the issuer the probe will inject
	Notes          []string // overrides and other notes for the table
}

// Report is what the checker found; its JSON is the probe's --json.
type Report struct {
	Issuer         string     `json:"issuer"`
	Kind           string     `json:"kind"`
	Lock           string     `json:"lock"`
	Version        string     `json:"version,omitempty"`
	StartedByProbe bool       `json:"started_by_probe"`
	StartUnix      float64    `json:"start_unix"`
	Workers        int        `json:"workers"`
	TTLAsked       float64    `json:"ttl_asked_s"`
	TTL            float64    `json:"ttl_s"`
	Duration       float64    `json:"duration_s"`
	Nemeses        []string   `json:"nemeses"`
	Verdict        string     `json:"verdict"`
	Counts         Counts     `json:"counts"`
	Faults         []Fault    `json:"faults"`
	Outages        []Span     `json:"outages"`
	AfterFaults    []After    `json:"after_faults"`
	Overlaps       Overlaps   `json:"overlaps"`
	EarlyGrants    []Early    `json:"early_grants"`
	Takeovers      []Takeover `json:"takeovers"`
	LongestGap     Gap        `json:"longest_without_grant"`
	Writes         *Writes    `json:"writes"`
	FirstViolation *Violation `json:"first_violation"`
	Violations     int        `json:"violations"`
	Notes          []string   `json:"-"`
	grants         []*Op      // by answer
	faultOps       []*Op      // the nemesis lines
	history        []Op       // as given
}

// The verdicts.
const (
	Held   = "held"
	Broken = "broken"
)

// Counts are the history's operations by result.
type Counts struct {
	Grants   int `json:"grants"`
	Refused  int `json:"refused"`
	Unknown  int `json:"unknown"`
	Renewals int `json:"renewals"`
	Lost     int `json:"lost"`
	Releases int `json:"releases"`
	CutOff   int `json:"cut_off"`
	Sessions int `json:"sessions"`
}

// Fault is one fault of the probe's as it happened.
type Fault struct {
	Kind   string  `json:"kind"`
	Target string  `json:"target"`
	From   float64 `json:"from"`
	To     float64 `json:"to"`
	By     string  `json:"by"`
	Missed bool    `json:"missed"`
}

// Span is an outage: from the sending of a request that failed to the
// next answer of the issuer.
type Span struct {
	From float64 `json:"from"`
	To   float64 `json:"to"`
}

// After is rule 3's row for one fault or outage.
type After struct {
	What          string  `json:"what"`
	Target        string  `json:"target,omitempty"`
	From          float64 `json:"from"`
	To            float64 `json:"to"`
	FirstToken    *int64  `json:"first_token"`
	HighestBefore *int64  `json:"highest_before"`
	Held          *bool   `json:"held"`
	first         *Op
}

// Overlaps are the stretches when two or more workers believed they held
// the lock.
type Overlaps struct {
	Count   int     `json:"count"`
	Longest float64 `json:"longest_s"`
	Total   float64 `json:"total_s"`
}

// Early is a grant answered before the previous holder's lease could have
// ended.
type Early struct {
	Worker string  `json:"worker"`
	At     float64 `json:"at"`
	Early  float64 `json:"early_s"`
}

// Takeover is the time from a paused holder's last renewal to the next
// grant to another worker.
type Takeover struct {
	Worker      string   `json:"worker"`
	Paused      float64  `json:"paused"`
	LastRenewal *float64 `json:"last_renewal"`
	NextGrant   *float64 `json:"next_grant"`
	Seconds     *float64 `json:"seconds"`
}

// Gap is the longest stretch without a grant.
type Gap struct {
	From    float64 `json:"from"`
	Seconds float64 `json:"seconds"`
}

// Writes are a receiver's figures, with --target or --sql: every write
// a holder sent with its token, and the deposed ones, sent after a
// higher token was granted to another worker.
type Writes struct {
	Sent       int     `json:"sent"`
	Applied    int     `json:"applied"`
	Rejected   int     `json:"rejected"`
	Suppressed int     `json:"suppressed"`
	Unknown    int     `json:"unknown"`
	Deposed    Deposed `json:"deposed"`
	// ValidRejected: writes of the holder of the highest token so far
	// that the receiver turned away (a fenced receiver after the issuer
	// went backwards).
	ValidRejected int `json:"valid_rejected"`
	// Receiver is the receiver's first broken rule in words, "" when
	// its rules held.
	Receiver string `json:"receiver,omitempty"`
}

// Deposed are the writes sent after a higher token went to another
// worker.
type Deposed struct {
	Sent     int `json:"sent"`
	Applied  int `json:"applied"`
	Rejected int `json:"rejected"`
	// AppliedFirst: applied before the newer holder's first write
	// reached the receiver; no fencing stops those.
	AppliedFirst int `json:"applied_before_newer"`
}

// Violation is the first broken rule, with both grants.
type Violation struct {
	Rule    string `json:"rule"` // backwards or duplicate
	Words   string `json:"words"`
	Earlier Grant  `json:"earlier"`
	Later   Grant  `json:"later"`
	Cause   string `json:"cause"`
}

// Grant is a grant as a violation names it.
type Grant struct {
	Worker   string  `json:"worker"`
	Token    int64   `json:"token"`
	Sent     float64 `json:"sent"`
	Answered float64 `json:"answered"`
}

// MinOutage is the shortest outage reported.
const MinOutage = 0.1

// ErrNothingToJudge is a history without a single grant.
var ErrNothingToJudge = fmt.Errorf("nothing to judge: no worker was granted the lock")

// Check judges a history. It returns ErrNothingToJudge when no grant was
// answered.
func Check(run Run, history []Op) (*Report, error) {
	ops := slices.Clone(history)
	SortByAnswer(ops)
	r := &Report{Issuer: run.Issuer, Kind: run.Kind, Lock: run.Lock, Version: run.Version,
		StartedByProbe: run.StartedByProbe, StartUnix: run.StartUnix, Workers: run.Workers,
		TTLAsked: run.TTLAsked, TTL: run.TTL, Duration: run.Duration, Nemeses: run.Nemeses, Notes: run.Notes,
		Faults: []Fault{}, Outages: []Span{}, AfterFaults: []After{}, EarlyGrants: []Early{}, Takeovers: []Takeover{},
		history: ops}
	if r.Nemeses == nil {
		r.Nemeses = []string{}
	}
	end := run.End
	for i := range ops {
		op := &ops[i]
		end = max(end, op.Answered)
		switch {
		case op.Worker == Nemesis:
			r.faultOps = append(r.faultOps, op)
			r.Faults = append(r.Faults, Fault{Kind: op.Op, Target: op.Target, From: op.Sent, To: op.Answered, By: "probe", Missed: op.Missed})
			continue
		case op.Error == CutOff:
			r.Counts.CutOff++
			continue
		case op.Result == Unknown:
			r.Counts.Unknown++
		}
		switch op.Op + "/" + op.Result {
		case OpAcquire + "/" + Granted:
			if op.Token == nil {
				return nil, fmt.Errorf("history: a grant to %s at %.3f s without a token", op.Worker, op.Answered)
			}
			r.Counts.Grants++
			r.grants = append(r.grants, op)
		case OpAcquire + "/" + Refused:
			r.Counts.Refused++
		case OpRenew + "/" + Renewed:
			r.Counts.Renewals++
		case OpRenew + "/" + Lost, OpLost + "/" + Lost, OpLost + "/":
			r.Counts.Lost++
		case OpRelease + "/" + Released:
			r.Counts.Releases++
		case OpSession + "/" + Opened:
			r.Counts.Sessions++
		}
	}
	if len(r.grants) == 0 {
		return nil, ErrNothingToJudge
	}
	r.Outages = outages(ops)
	r.rules()
	r.afterFaults()
	if r.FirstViolation != nil {
		r.FirstViolation.Cause, r.FirstViolation.Words = r.cause(r.FirstViolation)
	}
	r.Verdict = Held
	if r.FirstViolation != nil || slices.ContainsFunc(r.AfterFaults, func(a After) bool { return a.Held != nil && !*a.Held }) {
		r.Verdict = Broken
	}
	r.Writes = writes(ops, r.grants)
	r.Overlaps = overlaps(ops, r.grants, end)
	r.EarlyGrants = r.early()
	r.Takeovers = r.takeovers()
	r.LongestGap = longestGap(r.grants, end)
	return r, nil
}

// Receiver records the receiver's first broken rule (rule 4, checked by
// the receiver probe's own checker): the run is broken, and when the
// issuer's rules held it is the first violation.
func (r *Report) Receiver(words string) {
	if r.Writes == nil {
		r.Writes = &Writes{}
	}
	r.Writes.Receiver = words
	r.Verdict = Broken
	if r.FirstViolation == nil {
		r.FirstViolation = &Violation{Rule: "receiver", Words: "the receiver: " + words, Cause: ""}
	}
}

// writes sums up the receiver's writes; nil without any.
func writes(ops []Op, grants []*Op) *Writes {
	var w *Writes
	firstWrite := map[string]float64{} // owner → the answer of its holder's first write
	for i := range ops {
		op := &ops[i]
		if op.Op == OpWrite {
			if _, ok := firstWrite[op.Owner]; !ok {
				firstWrite[op.Owner] = op.Answered
			}
		}
	}
	for i := range ops {
		op := &ops[i]
		if op.Op != OpWrite {
			continue
		}
		if w == nil {
			w = &Writes{}
		}
		w.Sent++
		switch op.Result {
		case "applied":
			w.Applied++
		case "rejected":
			w.Rejected++
		case "suppressed":
			w.Suppressed++
		default:
			w.Unknown++
		}
		// the highest token granted to another worker before it was sent
		var newer *Op
		top := true
		for _, g := range grants {
			if g.Answered >= op.Sent {
				break
			}
			if op.Token != nil && *g.Token > *op.Token {
				top = false
				if g.Worker != op.Worker && (newer == nil || *g.Token > *newer.Token) {
					newer = g
				}
			}
		}
		if newer != nil {
			w.Deposed.Sent++
			switch op.Result {
			case "applied":
				w.Deposed.Applied++
				if f, ok := firstWrite[newer.Owner]; !ok || op.Answered < f {
					w.Deposed.AppliedFirst++
				}
			case "rejected":
				w.Deposed.Rejected++
			}
		}
		if top && op.Result == "rejected" {
			w.ValidRejected++
		}
	}
	return w
}

// rules checks rules 1 and 2 over the grants in the order of their
// answers: against the highest token answered before each was sent, and
// against every token seen.
func (r *Report) rules() {
	gs := r.grants
	best := make([]*Op, len(gs)) // best[i]: the grant of the highest token among gs[:i+1]
	for i, g := range gs {
		best[i] = g
		if i > 0 && *best[i-1].Token >= *g.Token {
			best[i] = best[i-1]
		}
	}
	seen := map[int64]*Op{}
	for _, h := range gs {
		// the grants answered before h was sent: gs[:k]
		k := sort.Search(len(gs), func(i int) bool { return gs[i].Answered >= h.Sent })
		var v *Violation
		if k > 0 && *best[k-1].Token >= *h.Token {
			v = &Violation{Rule: "backwards", Earlier: grantOf(best[k-1]), Later: grantOf(h)}
		} else if g := seen[*h.Token]; g != nil {
			v = &Violation{Rule: "duplicate", Earlier: grantOf(g), Later: grantOf(h)}
		}
		if seen[*h.Token] == nil {
			seen[*h.Token] = h
		}
		if v == nil {
			continue
		}
		r.Violations++
		if r.FirstViolation == nil {
			r.FirstViolation = v
		}
	}
}

func grantOf(op *Op) Grant {
	return Grant{Worker: op.Worker, Token: *op.Token, Sent: op.Sent, Answered: op.Answered}
}

// afterFaults is rule 3: for each fault and outage, the first grant asked
// after it ended against the highest token answered before it began.
func (r *Report) afterFaults() {
	type span struct {
		what, target string
		from, to     float64
	}
	var spans []span
	for _, f := range r.Faults {
		if !f.Missed {
			spans = append(spans, span{f.Kind, f.Target, f.From, f.To})
		}
	}
	for _, o := range r.Outages {
		spans = append(spans, span{"outage", "", o.From, o.To})
	}
	slices.SortStableFunc(spans, func(a, b span) int { return cmpFloat(a.from, b.from) })
	for _, s := range spans {
		a := After{What: s.what, Target: s.target, From: s.from, To: s.to}
		var hi *Op
		for _, g := range r.grants {
			if g.Answered >= s.from {
				break
			}
			if hi == nil || *g.Token > *hi.Token {
				hi = g
			}
		}
		for _, g := range r.grants {
			if g.Sent >= s.to && (a.first == nil || g.Sent < a.first.Sent) {
				a.first = g
			}
		}
		if hi != nil {
			a.HighestBefore = hi.Token
		}
		if a.first != nil {
			a.FirstToken = a.first.Token
			held := hi == nil || *a.first.Token > *hi.Token
			a.Held = &held
			if !held && r.FirstViolation == nil {
				r.FirstViolation = &Violation{Rule: "backwards", Earlier: grantOf(hi), Later: grantOf(a.first)}
				if *a.first.Token == *hi.Token {
					r.FirstViolation.Rule = "duplicate"
				}
			}
		}
		r.AfterFaults = append(r.AfterFaults, a)
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// outages: across all workers, from the sending of a request answered
// unknown to the next answer of the issuer that is not unknown; merged
// when they overlap, kept when at least MinOutage long.
func outages(ops []Op) []Span {
	var starts, answers []float64
	for i := range ops {
		op := &ops[i]
		switch {
		case op.Worker == Nemesis || op.Error == CutOff || op.Op == OpWrite:
		case op.Result == Unknown && strings.HasPrefix(op.Error, GaveUp):
			// a blocking wait that gave up: neither a failure nor an answer
		case op.Result == Unknown:
			starts = append(starts, op.Sent)
		case op.Op == OpLost:
		case slices.Contains([]string{Opened, Granted, Refused, Renewed, Lost, Released, Gone}, op.Result):
			answers = append(answers, op.Answered)
		}
	}
	slices.Sort(starts)
	slices.Sort(answers)
	var out []Span
	for _, s := range starts {
		if n := len(out); n > 0 && s <= out[n-1].To {
			continue // inside the outage already open
		}
		k := sort.SearchFloat64s(answers, s)
		for k < len(answers) && answers[k] <= s {
			k++
		}
		to := math.Inf(1)
		if k < len(answers) {
			to = answers[k]
		}
		out = append(out, Span{From: s, To: to})
	}
	kept := []Span{}
	for _, o := range out {
		if math.IsInf(o.To, 1) {
			continue // never answered again: no grant after it to judge; the gap shows it
		}
		if o.To-o.From >= MinOutage {
			kept = append(kept, o)
		}
	}
	return kept
}

// overlaps: each grant is believed held from its answer to the holder's
// next release sent, lost learned, or new acquire, else the end.
func overlaps(ops []Op, grants []*Op, end float64) Overlaps {
	type edge struct {
		at    float64
		delta int
	}
	var edges []edge
	for _, g := range grants {
		stop := end
		for i := range ops {
			op := &ops[i]
			if op.Worker != g.Worker || op.Sent < g.Answered && op.Answered <= g.Answered {
				continue
			}
			var at float64
			switch {
			case op.Op == OpRelease && op.Sent >= g.Answered:
				at = op.Sent
			case op.Result == Lost && op.Answered > g.Answered:
				at = op.Answered
			case op.Op == OpAcquire && op.Sent > g.Answered:
				at = op.Sent
			default:
				continue
			}
			stop = min(stop, at)
		}
		if stop > g.Answered {
			edges = append(edges, edge{g.Answered, 1}, edge{stop, -1})
		}
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if c := cmpFloat(a.at, b.at); c != 0 {
			return c
		}
		return a.delta - b.delta // ends first: touching is no overlap
	})
	var o Overlaps
	n, from := 0, 0.0
	for _, e := range edges {
		n += e.delta
		switch {
		case e.delta > 0 && n == 2:
			from = e.at
		case e.delta < 0 && n == 1:
			d := e.at - from
			o.Count++
			o.Total += d
			o.Longest = max(o.Longest, d)
		}
	}
	return o
}

// lastRenewal is the sending of w's latest answered request that
// restarted its lease's countdown, answered before at.
func (r *Report) lastRenewal(w string, at float64) *float64 {
	var best *float64
	for i := range r.history {
		op := &r.history[i]
		if op.Worker != w || op.Answered > at || op.Sent > at {
			continue
		}
		renews := op.Result == Renewed || op.Result == Granted || op.Op == OpSession && op.Result == Opened
		if r.Kind == "zk" {
			renews = op.Result != Unknown && op.Op != OpLost && op.Error == ""
		}
		if renews && (best == nil || op.Sent > *best) {
			s := op.Sent
			best = &s
		}
	}
	return best
}

// early: grants answered before the previous holder's last renewal + TTL,
// with no release sent.
func (r *Report) early() []Early {
	out := []Early{}
	for i := 1; i < len(r.grants); i++ {
		h, p := r.grants[i], r.grants[i-1]
		if p.Worker == h.Worker || r.releasedBetween(p, h.Answered) {
			continue
		}
		last := r.lastRenewal(p.Worker, h.Answered)
		if last == nil {
			continue
		}
		if d := *last + r.TTL - h.Answered; d > 0 {
			out = append(out, Early{Worker: h.Worker, At: h.Answered, Early: round3(d)})
		}
	}
	return out
}

// releasedBetween reports whether g's holder sent a release, or learned
// its loss, after g and before at.
func (r *Report) releasedBetween(g *Op, at float64) bool {
	for i := range r.history {
		op := &r.history[i]
		if op.Worker == g.Worker && op.Sent >= g.Answered && op.Sent < at && (op.Op == OpRelease || op.Result == Lost) {
			return true
		}
	}
	return false
}

// takeovers: after each pause-holder not missed, the paused holder's last
// renewal before the pause to the first grant to another worker after it.
func (r *Report) takeovers() []Takeover {
	out := []Takeover{}
	for _, f := range r.Faults {
		if f.Kind != "pause-holder" || f.Missed {
			continue
		}
		t := Takeover{Worker: f.Target, Paused: f.From, LastRenewal: r.lastRenewal(f.Target, f.From)}
		for _, g := range r.grants {
			if g.Worker != f.Target && g.Answered > f.From {
				a := g.Answered
				t.NextGrant = &a
				if t.LastRenewal != nil {
					s := round3(a - *t.LastRenewal)
					t.Seconds = &s
				}
				break
			}
		}
		out = append(out, t)
	}
	return out
}

func longestGap(grants []*Op, end float64) Gap {
	var g Gap
	prev := 0.0
	for _, x := range grants {
		if d := x.Answered - prev; d > g.Seconds {
			g = Gap{From: prev, Seconds: d}
		}
		prev = x.Answered
	}
	if d := end - prev; d > g.Seconds {
		g = Gap{From: prev, Seconds: d}
	}
	g.Seconds = round3(g.Seconds)
	return g
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
