package lab_test

// An independent reference model of the replay model, written from
// /work/shared/spec/model.md alone (not from the engine), and compared
// with lab.Replay by TestReferenceModel (refgen_test.go). Where the spec
// is silent the model follows the choices in lab/doc.go.

import (
	"fmt"

	"fencelab/lab"
)

// Lanes, in the order of lab.Policies.
const (
	pUnfenced = iota
	pClientCheck
	pFenced
	pStrict
	pIdempotent
	pRegister
	pAuthoritative
	pRacy
)

type refLease struct {
	holder string
	token  int64
	valid  bool // granted and neither expired nor released
}

type refActor struct {
	paused, crashed bool
	granted         bool // has had a grant
	scope           string
	token           int64 // of the latest grant
	answer          *bool // latest check or renew answer since the latest grant
}

type refReq struct {
	actor, value, res, op, scope string
	token                        *int64
	delivered, committed         bool
}

type refRes struct {
	value              *string
	vtoken, remembered *int64
	ops                map[string]bool  // op keys applied here (ever)
	maxApplied         map[string]int64 // highest applied token per scope (ever)
}

type refLane struct {
	res     map[string]*refRes
	aborted map[string]bool // client-check: sends that were aborted
	checked map[string]bool // fenced-racy: delivers waiting for their commit
	viol    []lab.Violation
}

type refStep struct {
	dec    [8]lab.Decision
	token  *int64
	scope  string // write/send: the write's scope
	values [8]map[string]*string
	tokens [8]map[string]*int64
}

type refModel struct {
	s          *lab.Scenario
	leases     map[string]*refLease
	next       map[string]int64
	maxGranted map[string]int64
	actors     map[string]*refActor
	reqs       map[string]*refReq // requests that were sent
	lanes      [8]*refLane
	cur        int // the step, from 1
	dec        [8]lab.Decision
}

func refInt(v int64) *int64 { return &v }

func newRefModel(s *lab.Scenario) *refModel {
	m := &refModel{s: s, leases: map[string]*refLease{"": {}}, next: map[string]int64{},
		maxGranted: map[string]int64{}, actors: map[string]*refActor{}, reqs: map[string]*refReq{}}
	for name, sc := range s.Scopes {
		m.leases[name] = &refLease{}
		m.next[name] = sc.FirstToken
	}
	for p := range m.lanes {
		l := &refLane{res: map[string]*refRes{}, aborted: map[string]bool{}, checked: map[string]bool{}}
		for name := range s.Resources {
			l.res[name] = &refRes{ops: map[string]bool{}, maxApplied: map[string]int64{}}
		}
		m.lanes[p] = l
	}
	return m
}

func (m *refModel) actor(name string) *refActor {
	if m.actors[name] == nil {
		m.actors[name] = &refActor{}
	}
	return m.actors[name]
}

func (m *refModel) holds(actor, scope string) bool {
	l := m.leases[scope]
	return scope != "" && l.valid && l.holder == actor
}

// leaseOK answers a check now: is the lease of the actor's latest grant valid?
func (m *refModel) leaseOK(a string) bool {
	ac := m.actor(a)
	return ac.granted && m.holds(a, ac.scope) && m.leases[ac.scope].token == ac.token
}

func (m *refModel) skip(e lab.Event) bool {
	ac := m.actor(e.Actor)
	switch e.Kind {
	case lab.Deliver: // before its (effective) send, or a second time
		q := m.reqs[e.Request]
		return q == nil || q.delivered
	case lab.Commit:
		q := m.reqs[e.Request]
		return q == nil || !q.delivered || q.committed
	case lab.Restart:
		return false
	case lab.Expire: // allowed while paused or crashed
		return !m.holds(e.Actor, e.Scope)
	}
	if ac.crashed || (ac.paused && e.Kind != lab.Resume && e.Kind != lab.Crash) {
		return true
	}
	return (e.Kind == lab.Resume && !ac.paused) || (e.Kind == lab.Release && !m.holds(e.Actor, e.Scope))
}

func (m *refModel) all(d lab.Decision) { m.dec = [8]lab.Decision{d, d, d, d, d, d, d, d} }

func (m *refModel) run() []refStep {
	var out []refStep
	for i, e := range m.s.Events {
		m.cur = i + 1
		st := refStep{}
		if m.skip(e) {
			m.all(lab.Skipped) // a skipped step changes nothing
			st.token = m.skippedToken(e)
		} else {
			m.all(lab.OK)
			st.token, st.scope = m.step(e)
		}
		st.dec = m.dec
		for p, l := range m.lanes {
			st.values[p], st.tokens[p] = map[string]*string{}, map[string]*int64{}
			for name, r := range l.res {
				st.values[p][name], st.tokens[p][name] = r.value, r.vtoken
			}
		}
		out = append(out, st)
	}
	return out
}

func (m *refModel) step(e lab.Event) (*int64, string) {
	ac := m.actor(e.Actor)
	switch e.Kind {
	case lab.Acquire:
		l := m.leases[e.Scope]
		if l.valid { // someone validly holds it, the actor itself included
			m.all(lab.Refused)
			return nil, ""
		}
		t := m.next[e.Scope]
		if e.Token != nil {
			t = *e.Token
		}
		m.next[e.Scope] = t + 1
		*l = refLease{holder: e.Actor, token: t, valid: true}
		if g, ok := m.maxGranted[e.Scope]; !ok || t > g {
			m.maxGranted[e.Scope] = t
		}
		ac.granted, ac.scope, ac.token, ac.answer = true, e.Scope, t, nil
		m.all(lab.Granted)
		for name, r := range m.lanes[pRegister].res {
			if m.s.Resources[name].Fencing && (r.remembered == nil || *r.remembered < t) {
				r.remembered = refInt(t)
			}
		}
		return refInt(t), ""
	case lab.Pause, lab.Resume:
		ac.paused = e.Kind == lab.Pause
	case lab.Crash:
		ac.crashed = true
	case lab.Expire:
		m.leases[e.Scope].valid = false
	case lab.Release:
		*m.leases[e.Scope] = refLease{}
	case lab.Renew:
		ok := m.holds(e.Actor, e.Scope)
		ac.answer = &ok
		m.all(map[bool]lab.Decision{true: lab.Granted, false: lab.Refused}[ok])
	case lab.Check:
		ok := m.leaseOK(e.Actor)
		ac.answer = &ok
	case lab.Restart:
		if m.s.Resources[e.Resource].Remember == lab.Memory {
			for _, l := range m.lanes {
				l.res[e.Resource].remembered = nil
			}
		}
	case lab.Write, lab.Send:
		q := &refReq{actor: e.Actor, value: *e.Value, res: e.Resource, op: e.Op}
		if ac.granted {
			q.scope, q.token = ac.scope, refInt(ac.token)
		} else if len(m.s.Scopes) == 1 {
			for name := range m.s.Scopes {
				q.scope = name
			}
		}
		if e.Token != nil {
			q.token = refInt(*e.Token)
		} else if e.TokenNull {
			q.token = nil
		}
		id := e.ID
		if e.Kind == lab.Write {
			id = fmt.Sprintf("#%d", m.cur)
		}
		m.reqs[id] = q
		m.all(lab.Sent)
		ok := m.leaseOK(e.Actor) // the implicit check is not remembered
		if ac.answer != nil {
			ok = *ac.answer
		}
		if !ok {
			m.lanes[pClientCheck].aborted[id] = true
			m.rejected(pClientCheck, q)
		}
		if e.Kind == lab.Write {
			m.deliver(id, q)
		}
		if !ok {
			m.dec[pClientCheck] = lab.Aborted
		}
		return q.token, q.scope
	case lab.Deliver:
		q := m.reqs[e.Request]
		m.deliver(e.Request, q)
		return q.token, ""
	case lab.Commit:
		q := m.reqs[e.Request]
		q.committed = true
		if l := m.lanes[pRacy]; l.checked[e.Request] {
			m.dec[pRacy] = lab.Applied
			m.apply(pRacy, q)
			l.res[q.res].remembered = q.token // even when lower
		}
		return q.token, ""
	}
	return nil, ""
}

// skippedToken is the token a skipped step still involves: the one a write
// or send would have carried, or the request's once it was sent.
func (m *refModel) skippedToken(e lab.Event) *int64 {
	switch e.Kind {
	case lab.Write, lab.Send:
		if e.Token != nil || e.TokenNull {
			return e.Token
		}
		if ac := m.actor(e.Actor); ac.granted {
			return refInt(ac.token)
		}
	case lab.Deliver, lab.Commit:
		if q, ok := m.reqs[e.Request]; ok {
			return q.token
		}
	}
	return nil
}

func (m *refModel) laterCommit(id string) bool {
	for _, e := range m.s.Events[m.cur:] {
		if e.Kind == lab.Commit && e.Request == id {
			return true
		}
	}
	return false
}

func (m *refModel) deliver(id string, q *refReq) {
	q.delivered = true
	fencing := m.s.Resources[q.res].Fencing
	for p, l := range m.lanes {
		r := l.res[q.res]
		ok := true
		switch {
		case p == pClientCheck && l.aborted[id]:
			m.dec[p] = lab.Dropped
			continue
		case p == pUnfenced || p == pClientCheck || !fencing:
		case p == pAuthoritative:
			le := m.leases[q.scope]
			ok = q.scope != "" && q.token != nil && le.valid && le.token == *q.token
		default:
			if p == pIdempotent && q.op != "" && r.ops[q.op] {
				m.dec[p] = lab.Suppressed
				continue
			}
			ok = q.token != nil && (r.remembered == nil || *q.token >= *r.remembered)
			if p == pStrict && ok && r.remembered != nil {
				ok = *q.token > *r.remembered
			}
			if ok && p == pRacy && m.laterCommit(id) {
				m.dec[p] = lab.Checked
				l.checked[id] = true
				continue
			}
		}
		if !ok {
			m.dec[p] = lab.Rejected
			m.rejected(p, q)
			continue
		}
		m.dec[p] = lab.Accepted
		m.apply(p, q)
		if fencing && p != pUnfenced && p != pClientCheck && p != pAuthoritative {
			r.remembered = q.token // t >= remembered here: the highest applied
		}
	}
}

// violate records a violation in the class the spec's table gives it;
// unowned-write is classed by applied, which knows the moment.
func (m *refModel) violate(p int, kind lab.Invariant) {
	class := map[lab.Invariant]lab.Class{lab.StaleOverwrite: lab.Corrupting, lab.DuplicateApplied: lab.Corrupting,
		lab.ValidWriteRejected: lab.Refusing, lab.SupersededWrite: lab.Deposed}[kind]
	m.violateAs(p, kind, class)
}

func (m *refModel) violateAs(p int, kind lab.Invariant, class lab.Class) {
	for _, v := range m.lanes[p].viol {
		if v.Step == m.cur && v.Kind == kind {
			return
		}
	}
	m.lanes[p].viol = append(m.lanes[p].viol, lab.Violation{Kind: kind, Step: m.cur, Class: class})
}

// rejected: valid-write-rejected only when the writer itself holds the
// scope's current valid lease with the write's token (model 2).
func (m *refModel) rejected(p int, q *refReq) {
	le := m.leases[q.scope]
	if q.token != nil && q.scope != "" && le.valid && le.holder == q.actor && le.token == *q.token {
		m.violate(p, lab.ValidWriteRejected)
	}
}

func (m *refModel) apply(p int, q *refReq) {
	r := m.lanes[p].res[q.res]
	if q.token != nil && q.scope != "" {
		t := *q.token
		if a, ok := r.maxApplied[q.scope]; ok && a > t {
			m.violate(p, lab.StaleOverwrite)
		}
		if g, ok := m.maxGranted[q.scope]; ok && g > t {
			m.violate(p, lab.SupersededWrite)
		}
		if a, ok := r.maxApplied[q.scope]; !ok || t > a {
			r.maxApplied[q.scope] = t
		}
	}
	if q.op != "" && r.ops[q.op] {
		m.violate(p, lab.DuplicateApplied)
	}
	if !m.holds(q.actor, q.scope) {
		// deposed when another actor validly holds the scope now (same
		// token or not); overrun when nobody else does, or with no scope.
		class := lab.Overrun
		if le := m.leases[q.scope]; q.scope != "" && le.valid && le.holder != q.actor {
			class = lab.Deposed
		}
		m.violateAs(p, lab.UnownedWrite, class)
	}
	if q.op != "" {
		r.ops[q.op] = true
	}
	r.value, r.vtoken = &q.value, q.token
}
