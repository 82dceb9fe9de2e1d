package lab_test

// An independent reference model of the replay model (model 3), written
// from the spec alone (not from the engine), and compared with lab.Replay
// by TestReferenceModel (refgen_test.go). Where the spec is silent the
// model follows the choices in lab/doc.go. It keeps state the plain way
// (maps, lists of valid leases, a log of the writes applied at each
// resource) where the engine packs it, so that the two agree by the rules
// and not by sharing a representation.

import (
	"fmt"
	"slices"

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
	pCAS
	refLanes
)

// refGrant is one valid lease.
type refGrant struct {
	actor string
	token int64
}

type refActor struct {
	paused, crashed bool
	granted         bool // has had a grant
	scope           string
	token           int64            // of the latest grant
	answer          *bool            // latest check or renew answer since the latest grant
	grants          map[string]int64 // per scope: the latest grant's token
	answers         map[string]*bool // per scope: latest answer about it since its latest grant
}

type refReq struct {
	actor, value, res, op, scope string
	token                        *int64
	rmw                          bool
	readAt                       [refLanes]int // per lane: the length of the resource's log at the actor's latest read
	delivered, committed         bool
}

type refRes struct {
	value      *string
	vtoken     *int64
	remembered map[string]int64 // the receiver's token: key "" when shared, else per scope
	keys       map[string]bool  // the op keys the receiver remembers
	ops        map[string]bool  // op keys applied here (ever): the observer's
	maxApplied map[string]int64 // highest applied token per scope (ever)
	log        []string         // the actor of each write applied, in order
}

type refLane struct {
	res     map[string]*refRes
	aborted map[string]bool // client-check: sends that were aborted
	checked map[string]bool // fenced-racy: delivers waiting for their commit
	readAt  map[string]int  // actor+"/"+resource: the log's length at the latest read
	viol    []lab.Violation
}

type refStep struct {
	dec      [refLanes]lab.Decision
	token    *int64
	scope    string // write/send: the write's scope
	values   [refLanes]map[string]*string
	tokens   [refLanes]map[string]*int64
	versions [refLanes]map[string]int
}

type refModel struct {
	s          *lab.Scenario
	valid      map[string][]refGrant // per scope, in grant order
	next       map[string]int64
	maxGranted map[string]int64
	actors     map[string]*refActor
	reqs       map[string]*refReq // requests that were sent
	lanes      [refLanes]*refLane
	cur        int // the step, from 1
	dec        [refLanes]lab.Decision
}

func refInt(v int64) *int64 { return &v }

func newRefModel(s *lab.Scenario) *refModel {
	m := &refModel{s: s, valid: map[string][]refGrant{}, next: map[string]int64{},
		maxGranted: map[string]int64{}, actors: map[string]*refActor{}, reqs: map[string]*refReq{}}
	for name, sc := range s.Scopes {
		m.next[name] = sc.FirstToken
	}
	for p := range m.lanes {
		l := &refLane{res: map[string]*refRes{}, aborted: map[string]bool{}, checked: map[string]bool{}, readAt: map[string]int{}}
		for name := range s.Resources {
			l.res[name] = &refRes{remembered: map[string]int64{}, keys: map[string]bool{}, ops: map[string]bool{}, maxApplied: map[string]int64{}}
		}
		m.lanes[p] = l
	}
	return m
}

func (m *refModel) actor(name string) *refActor {
	if m.actors[name] == nil {
		m.actors[name] = &refActor{grants: map[string]int64{}, answers: map[string]*bool{}}
	}
	return m.actors[name]
}

// holds: the actor has a valid lease of the scope.
func (m *refModel) holds(actor, scope string) bool {
	return slices.ContainsFunc(m.valid[scope], func(g refGrant) bool { return g.actor == actor })
}

// current is the current holder: the latest-granted valid lease.
func (m *refModel) current(scope string) (refGrant, bool) {
	v := m.valid[scope]
	if scope == "" || len(v) == 0 {
		return refGrant{}, false
	}
	return v[len(v)-1], true
}

// leaseOK answers a check now about the actor's lease of scope.
func (m *refModel) leaseOK(a, scope string) bool {
	_, granted := m.actor(a).grants[scope]
	return scope != "" && granted && m.holds(a, scope)
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

func (m *refModel) all(d lab.Decision) {
	for p := range m.dec {
		m.dec[p] = d
	}
}

func (m *refModel) hasRMW() bool {
	for _, e := range m.s.Events {
		if (e.Kind == lab.Write || e.Kind == lab.Send) && e.RMW != nil && *e.RMW {
			return true
		}
	}
	return false
}

func (m *refModel) run() []refStep {
	var out []refStep
	rmw := m.hasRMW()
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
			if rmw {
				st.versions[p] = map[string]int{}
			}
			for name, r := range l.res {
				st.values[p][name], st.tokens[p][name] = r.value, r.vtoken
				if rmw {
					st.versions[p][name] = len(r.log)
				}
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
		return m.acquire(e), ""
	case lab.Pause, lab.Resume:
		ac.paused = e.Kind == lab.Pause
	case lab.Crash:
		ac.crashed = true
	case lab.Expire, lab.Release:
		m.valid[e.Scope] = slices.DeleteFunc(m.valid[e.Scope], func(g refGrant) bool { return g.actor == e.Actor })
	case lab.Renew:
		ok := m.holds(e.Actor, e.Scope)
		ac.answer, ac.answers[e.Scope] = &ok, &ok
		m.all(map[bool]lab.Decision{true: lab.Granted, false: lab.Refused}[ok])
	case lab.Check:
		scope := e.Scope
		if scope == "" && ac.granted {
			scope = ac.scope
		}
		ok := m.leaseOK(e.Actor, scope)
		ac.answer = &ok
		if scope != "" {
			ac.answers[scope] = &ok
		}
	case lab.Restart:
		m.restart(e)
	case lab.Read:
		for p, l := range m.lanes {
			for name, r := range l.res {
				if e.Resource == "" || e.Resource == name {
					m.lanes[p].readAt[e.Actor+"/"+name] = len(r.log)
				}
			}
		}
	case lab.Write, lab.Send:
		return m.send(e)
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
			l.res[q.res].remembered[m.slot(q)] = *q.token // even when lower
		}
		return q.token, ""
	}
	return nil, ""
}

func (m *refModel) acquire(e lab.Event) *int64 {
	ac := m.actor(e.Actor)
	split := e.Split != nil && *e.Split
	if m.holds(e.Actor, e.Scope) || (len(m.valid[e.Scope]) > 0 && !split) {
		m.all(lab.Refused)
		return nil
	}
	t := m.next[e.Scope]
	if e.Token != nil {
		t = *e.Token
	}
	m.next[e.Scope] = t + 1
	m.valid[e.Scope] = append(m.valid[e.Scope], refGrant{e.Actor, t})
	if g, ok := m.maxGranted[e.Scope]; !ok || t > g {
		m.maxGranted[e.Scope] = t
	}
	ac.granted, ac.scope, ac.token, ac.answer = true, e.Scope, t, nil
	ac.grants[e.Scope], ac.answers[e.Scope] = t, nil
	m.all(lab.Granted)
	for name, r := range m.lanes[pRegister].res {
		key := ""
		if m.s.Resources[name].Tokens == lab.PerScopeTokens {
			key = e.Scope
		}
		if rem, ok := r.remembered[key]; m.s.Resources[name].Fencing && (!ok || rem < t) {
			r.remembered[key] = t
		}
	}
	return refInt(t)
}

func (m *refModel) restart(e lab.Event) {
	if e.Scope != "" {
		if m.s.Scopes[e.Scope].Remember == lab.Memory {
			m.valid[e.Scope] = nil
			m.next[e.Scope] = m.s.Scopes[e.Scope].FirstToken
		}
		return
	}
	rs := m.s.Resources[e.Resource]
	for _, l := range m.lanes {
		if rs.Remember == lab.Memory {
			clear(l.res[e.Resource].remembered)
		}
		if rs.Keys == lab.Memory {
			clear(l.res[e.Resource].keys)
		}
	}
}

func (m *refModel) send(e lab.Event) (*int64, string) {
	ac := m.actor(e.Actor)
	q := &refReq{actor: e.Actor, value: *e.Value, res: e.Resource, op: e.Op, scope: e.Scope, rmw: e.RMW != nil && *e.RMW}
	if q.scope == "" && ac.granted {
		q.scope = ac.scope
	} else if q.scope == "" && len(m.s.Scopes) == 1 {
		for name := range m.s.Scopes {
			q.scope = name
		}
	}
	if t, ok := ac.grants[q.scope]; ok {
		q.token = refInt(t)
	}
	if e.Token != nil {
		q.token = refInt(*e.Token)
	} else if e.TokenNull {
		q.token = nil
	}
	for p, l := range m.lanes {
		q.readAt[p] = l.readAt[e.Actor+"/"+e.Resource]
	}
	id := e.ID
	if e.Kind == lab.Write {
		id = fmt.Sprintf("#%d", m.cur)
	}
	m.reqs[id] = q
	m.all(lab.Sent)
	ok := m.clientOK(e, ac)
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
}

// clientOK is the worker's check before sending: the remembered answer
// (about the named scope, or any since the latest grant), else one now.
func (m *refModel) clientOK(e lab.Event, ac *refActor) bool {
	if e.Scope != "" {
		if a := ac.answers[e.Scope]; a != nil {
			return *a
		}
		return m.leaseOK(e.Actor, e.Scope)
	}
	if ac.answer != nil {
		return *ac.answer
	}
	return ac.granted && m.leaseOK(e.Actor, ac.scope)
}

// skippedToken is the token a skipped step still involves: the one a write
// or send would have carried, or the request's once it was sent.
func (m *refModel) skippedToken(e lab.Event) *int64 {
	switch e.Kind {
	case lab.Write, lab.Send:
		if e.Token != nil || e.TokenNull {
			return e.Token
		}
		ac := m.actor(e.Actor)
		scope := e.Scope
		if scope == "" {
			scope = ac.scope
		}
		if t, ok := ac.grants[scope]; ok {
			return refInt(t)
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

// slot is the key of the token the request's receiver compares with.
func (m *refModel) slot(q *refReq) string {
	if m.s.Resources[q.res].Tokens == lab.PerScopeTokens {
		return q.scope
	}
	return ""
}

// stale: another actor's write was applied at the resource since the
// request's actor last read it before sending.
func (m *refModel) stale(p int, q *refReq) bool {
	for _, a := range m.lanes[p].res[q.res].log[q.readAt[p]:] {
		if a != q.actor {
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
			ok = q.token != nil && slices.ContainsFunc(m.valid[q.scope], func(g refGrant) bool { return g.token == *q.token })
		case p == pCAS:
			ok = !q.rmw || !m.stale(p, q)
		default:
			if p == pIdempotent && q.op != "" && r.keys[q.op] {
				m.dec[p] = lab.Suppressed
				continue
			}
			rem, has := r.remembered[m.slot(q)]
			ok = q.token != nil && (m.slot(q) != "" || m.s.Resources[q.res].Tokens != lab.PerScopeTokens) && (!has || *q.token >= rem)
			if p == pStrict && ok && has {
				ok = *q.token > rem
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
		if fencing && p != pUnfenced && p != pClientCheck && p != pAuthoritative && p != pCAS {
			r.remembered[m.slot(q)] = *q.token // t >= remembered here: the highest applied
		}
	}
}

// violate records a violation in the class the spec's table gives it;
// unowned-write is classed by apply, which knows the moment.
func (m *refModel) violate(p int, kind lab.Invariant) {
	class := map[lab.Invariant]lab.Class{lab.StaleOverwrite: lab.Corrupting, lab.DuplicateApplied: lab.Corrupting,
		lab.LostUpdate: lab.Corrupting, lab.ValidWriteRejected: lab.Refusing, lab.SupersededWrite: lab.Deposed}[kind]
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

// rejected: valid-write-rejected only when the writer is the current
// holder with the write's token, and the write is not a stale rmw.
func (m *refModel) rejected(p int, q *refReq) {
	cur, ok := m.current(q.scope)
	if q.token != nil && ok && cur.actor == q.actor && cur.token == *q.token && !(q.rmw && m.stale(p, q)) {
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
	if cur, ok := m.current(q.scope); !ok || cur.actor != q.actor {
		// deposed when another actor is the current holder now (same
		// token or not); overrun when there is none, or with no scope.
		class := lab.Overrun
		if ok {
			class = lab.Deposed
		}
		m.violateAs(p, lab.UnownedWrite, class)
	}
	if q.rmw && m.stale(p, q) {
		m.violate(p, lab.LostUpdate)
	}
	if q.op != "" {
		r.ops[q.op], r.keys[q.op] = true, true
	}
	r.log = append(r.log, q.actor)
	r.value, r.vtoken = &q.value, q.token
}
