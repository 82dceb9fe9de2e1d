package probe

import (
	"context"
	"errors"
	"fmt"

	"fencelab/lab"
)

// Prober plays scenarios at one receiver under the policy it claims.
type Prober struct {
	// Client is the receiver: an HTTP Client or a SQL receiver.
	Client   Receiver
	Policy   lab.Policy
	Remember lab.Remember
	// Progress, when set, is told how far a long mode has come.
	Progress func(done, total int)
}

// Sequential resets the receiver and plays s in its order. The error is
// set only when the receiver cannot be reached; every other failure is in
// the result.
func (p *Prober) Sequential(ctx context.Context, s *lab.Scenario) (*Result, error) {
	prepared, changes := Prepare(s, p.Remember)
	res := p.result(s.Title, "sequential", changes)
	pl, err := p.play(ctx, prepared)
	if err != nil {
		return nil, err
	}
	res.Steps, res.Verdict, res.Divergence = pl.steps, pl.verdict, pl.divergence
	return res, nil
}

func (p *Prober) result(title, mode string, changes []string) *Result {
	remember := string(lab.Durable)
	if p.Remember == lab.Memory {
		remember = string(lab.Memory)
	}
	return &Result{Target: p.Client.Target(), Scenario: title, Policy: p.Policy, Remember: remember,
		Mode: mode, Overrides: changes, Verdict: Agree}
}

// played is one play of a scenario.
type played struct {
	steps      []Step
	verdict    string
	divergence string
}

// player keeps what the receiver acknowledged so far, for the words of a
// divergence.
type player struct {
	p      *Prober
	ctx    context.Context
	trace  *lab.Trace
	expect map[int]expectation
	sends  map[string]lab.Event
	ack    *int64 // the highest token the receiver acknowledged
	ackAt  string // "at step 5" or "registered at step 4"
	opStep map[string]int
	out    played
	// versions is each resource's version as last read, before is what it
	// was before the latest read (cas), for the words of a divergence.
	versions map[string]*int64
	before   *int64
	readRes  string // the resource of the latest read
}

// play resets the receiver and plays the prepared scenario's steps in order.
func (p *Prober) play(ctx context.Context, s *lab.Scenario) (played, error) {
	t := lab.Replay(s)
	pl := &player{p: p, ctx: ctx, trace: t, expect: expectations(t, p.Policy),
		sends: map[string]lab.Event{}, opStep: map[string]int{}, out: played{verdict: Agree}}
	declare(p.Client, s)
	if err := p.Client.Reset(ctx); err != nil {
		var ce *ContractError
		if errors.As(err, &ce) {
			return played{verdict: Disagree, divergence: "the receiver failed to reset: " + err.Error()}, nil
		}
		return played{}, err
	}
	for i := range pl.trace.Steps {
		stop, err := pl.step(&pl.trace.Steps[i])
		if err != nil {
			return played{}, err
		}
		if stop {
			break
		}
	}
	return pl.out, nil
}

// step plays one step; stop is set after an error of the receiver or a
// part of the contract it leaves out.
func (pl *player) step(st *lab.Step) (stop bool, err error) {
	row := Step{Index: st.Index, Event: st.Event, Agree: true}
	if st.Event.Kind == lab.Send {
		pl.sends[st.Event.ID] = st.Event
	}
	x, ok := pl.expect[st.Index]
	if !ok {
		return pl.record(row, nil)
	}
	row.Request, row.Reason, row.ExpectVersion = x.Request, x.Reason, x.expect
	exp := x.Expected
	row.Expected = &exp
	switch x.Request {
	case "POST /grants":
		if err = grant(pl.ctx, pl.p.Client, st.Event.Scope, *st.Token, st.Event.Actor); err == nil {
			row.Observed = &Observation{Outcome: "ok"}
			pl.acknowledge(*st.Token, fmt.Sprintf("registered at step %d", st.Index))
		}
	case "POST /restart":
		if err = pl.p.Client.Restart(pl.ctx, x.resource); err == nil {
			err = pl.read(&row, x.resource)
		}
	default:
		if err = pl.write(&row, st, x.write, x.expect); err == nil {
			err = pl.read(&row, x.resource)
		}
	}
	return pl.record(row, err)
}

// write sends a write or a delivered send, with its version condition
// when it has one.
func (pl *player) write(row *Step, st *lab.Step, e lab.Event, expect *int64) error {
	w := WriteRequest{Resource: e.Resource, Value: deref(e.Value), Token: st.Token, ID: e.ID, ExpectVersion: expect, Writer: e.Actor}
	if e.Scope != "" {
		w.Scope = &e.Scope
	}
	if e.Op != "" {
		w.Op = &e.Op
	}
	a, err := pl.p.Client.Write(pl.ctx, w)
	if err != nil {
		return err
	}
	row.Observed = &Observation{Outcome: a.Outcome, Reason: a.Reason}
	if a.Outcome == "applied" && st.Token != nil {
		pl.acknowledge(*st.Token, fmt.Sprintf("at step %d", st.Index))
	}
	if a.Outcome == "applied" && e.Op != "" {
		if _, seen := pl.opStep[e.Op]; !seen {
			pl.opStep[e.Op] = st.Index
		}
	}
	return nil
}

func (pl *player) acknowledge(t int64, at string) {
	if pl.ack == nil || t >= *pl.ack {
		pl.ack, pl.ackAt = &t, at
	}
}

// read reads the resource after the step into the observation.
func (pl *player) read(row *Step, res string) error {
	h, err := pl.p.Client.Resource(pl.ctx, res)
	if err != nil {
		return err
	}
	if row.Observed == nil {
		row.Observed = &Observation{Outcome: "ok"}
	}
	row.Observed.Value, row.Observed.Token = h.Value, h.Token
	row.Observed.NoToken = h.NoToken && pl.p.Policy.ChecksVersion() // under cas a receiver may keep no token
	if row.Expected != nil && row.Expected.Version != nil {
		row.Observed.Version = h.Version // only where the model expects one: see Observation
		if h.Version == nil && h.Value == nil && h.Token == nil {
			row.Observed.Version = new(int64) // holds nothing (a 404, no row): never written, version 0
		}
		if pl.versions == nil {
			pl.versions = map[string]*int64{}
		}
		pl.before, pl.readRes = pl.versions[res], res
		if pl.before == nil {
			pl.before = new(int64) // never read: version 0
		}
		pl.versions[res] = row.Observed.Version
	}
	return nil
}

// record compares the row and keeps it; an error ends the play.
func (pl *player) record(row Step, err error) (bool, error) {
	var ce *ContractError
	switch {
	case errors.Is(err, ErrNotSupported):
		pl.out.verdict = NotTestable
		pl.out.divergence = fmt.Sprintf("not testable against this receiver: step %d needs %s", row.Index, unsupported(pl.p.Client, row.Request))
		pl.out.steps = append(pl.out.steps, row)
		return true, nil
	case errors.As(err, &ce):
		row.Agree, row.Error = false, ce.Error()
		row.Observed = &Observation{Outcome: "error"}
		pl.disagree(fmt.Sprintf("step %d: %s", row.Index, ce.Error()))
		pl.out.steps = append(pl.out.steps, row)
		return true, nil
	case err != nil:
		return true, fmt.Errorf("step %d: %w", row.Index, err)
	}
	if row.Expected != nil {
		row.Agree = same(row.Expected, row.Observed)
		if !row.Agree {
			pl.disagree(pl.explain(row))
		}
	}
	pl.out.steps = append(pl.out.steps, row)
	return false, nil
}

func (pl *player) disagree(words string) {
	if pl.out.verdict == Agree {
		pl.out.verdict, pl.out.divergence = Disagree, words
	}
}

// same compares an observation with the model's; the version only where
// the model expects one.
func same(want, got *Observation) bool {
	return got != nil && want.Outcome == got.Outcome && eq(want.Value, got.Value) && (got.NoToken || eq(want.Token, got.Token)) &&
		(want.Version == nil || eq(want.Version, got.Version))
}

func eq[T comparable](a, b *T) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
