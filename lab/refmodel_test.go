package lab_test

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"fencelab/lab"
)

// An independent reference model of the replay model, written from
// /work/shared/spec/model.md alone, and compared with lab.Replay.

type refLease struct {
	holder string // "" when free (released, never granted)
	token  int64
	valid  bool
}

type refActor struct {
	paused, crashed bool
	granted         bool // has a grant at all
	scope           string
	token           int64
	answer          *bool // latest check/renew answer since the latest grant
}

type refReq struct {
	actor, value, res, op, scope string
	token                        *int64
	sent, delivered, committed   bool
}

type refRes struct {
	value, vtoken, remembered *int64 // value is an index into strs
	ops                       map[string]bool
	maxApplied                map[string]int64
}

type refLane struct {
	res     map[string]*refRes
	aborted map[string]bool
	checked map[string]bool
	viol    []lab.Violation
}

type refStep struct {
	dec    [8]lab.Decision
	token  *int64
	values [8]map[string]*string
	tokens [8]map[string]*int64
}

type refModel struct {
	s          *lab.Scenario
	leases     map[string]*refLease
	next       map[string]int64
	maxGranted map[string]int64
	actors     map[string]*refActor
	reqs       map[string]*refReq
	lanes      [8]*refLane
	strs       []string
	cur        int // 1-based step index
	dec        [8]lab.Decision
}

func refInt(v int64) *int64 { return &v }

func (m *refModel) actor(name string) *refActor {
	if m.actors[name] == nil {
		m.actors[name] = &refActor{}
	}
	return m.actors[name]
}

// holds: the actor validly holds the scope.
func (m *refModel) holds(actor, scope string) bool {
	l := m.leases[scope]
	return scope != "" && l.valid && l.holder == actor
}

// leaseOK is the answer of a check now: the lease of the latest grant is valid.
func (m *refModel) leaseOK(a string) bool {
	ac := m.actor(a)
	return ac.granted && m.holds(a, ac.scope) && m.leases[ac.scope].token == ac.token
}

func (m *refModel) skip(e lab.Event) bool {
	ac := m.actor(e.Actor)
	switch e.Kind {
	case lab.Deliver:
		q := m.reqs[e.Request]
		return q == nil || !q.sent || q.delivered
	case lab.Commit:
		q := m.reqs[e.Request]
		return q == nil || !q.delivered || q.committed
	case lab.Restart:
		return false
	case lab.Expire:
		return !m.holds(e.Actor, e.Scope)
	}
	if ac.crashed || (ac.paused && e.Kind != lab.Resume && e.Kind != lab.Crash) {
		return true
	}
	switch e.Kind {
	case lab.Resume:
		return !ac.paused
	case lab.Release:
		return !m.holds(e.Actor, e.Scope)
	}
	return false
}

func (m *refModel) all(d lab.Decision) {
	for i := range m.dec {
		m.dec[i] = d
	}
}

func (m *refModel) run() []refStep {
	var out []refStep
	for i, e := range m.s.Events {
		m.cur = i + 1
		m.all(lab.OK)
		var tok *int64
		if m.skip(e) {
			m.all(lab.Skipped) // a skipped step involves no token
		} else {
			tok = m.step(e)
		}
		st := refStep{dec: m.dec, token: tok}
		for p, l := range m.lanes {
			st.values[p], st.tokens[p] = map[string]*string{}, map[string]*int64{}
			for name, r := range l.res {
				st.tokens[p][name] = r.vtoken
				if r.value != nil {
					st.values[p][name] = &m.strs[*r.value]
				} else {
					st.values[p][name] = nil
				}
			}
		}
		out = append(out, st)
	}
	return out
}

func (m *refModel) step(e lab.Event) *int64 {
	ac := m.actor(e.Actor)
	switch e.Kind {
	case lab.Acquire:
		l := m.leases[e.Scope]
		if l.valid {
			m.all(lab.Refused)
			return nil
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
		for name, r := range m.lanes[5].res { // fenced-register
			if m.s.Resources[name].Fencing && (r.remembered == nil || *r.remembered < t) {
				r.remembered = refInt(t)
			}
		}
		return refInt(t)
	case lab.Pause:
		ac.paused = true
	case lab.Resume:
		ac.paused = false
	case lab.Crash:
		ac.crashed = true
	case lab.Expire, lab.Release:
		l := m.leases[e.Scope]
		l.valid = false
		if e.Kind == lab.Release {
			l.holder = ""
		}
	case lab.Renew:
		ok := m.holds(e.Actor, e.Scope)
		ac.answer = &ok
		if !ok {
			m.all(lab.Refused)
		} else {
			m.all(lab.Granted)
		}
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
		q := &refReq{actor: e.Actor, value: *e.Value, res: e.Resource, op: e.Op, sent: true}
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
			id = fmt.Sprintf("#write%d", m.cur)
		}
		m.reqs[id] = q
		m.all(lab.Sent)
		ok := m.leaseOK(e.Actor)
		if ac.answer != nil {
			ok = *ac.answer
		}
		if !ok {
			m.dec[1] = lab.Aborted
			m.lanes[1].aborted[id] = true
			m.rejected(1, q)
		}
		if e.Kind == lab.Write {
			d1 := m.dec[1]
			m.deliver(id, q)
			if d1 == lab.Aborted {
				m.dec[1] = lab.Aborted
			}
		}
		return q.token
	case lab.Deliver:
		q := m.reqs[e.Request]
		m.deliver(e.Request, q)
		return q.token
	case lab.Commit:
		q := m.reqs[e.Request]
		q.committed = true
		if l := m.lanes[7]; l.checked[e.Request] {
			m.dec[7] = lab.Applied
			m.apply(7, q)
			l.res[q.res].remembered = q.token
		}
		return q.token
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
	for p := range m.lanes {
		l := m.lanes[p]
		r := l.res[q.res]
		ok := true
		switch {
		case p == 1 && l.aborted[id]:
			m.dec[p] = lab.Dropped
			continue
		case p <= 1 || !fencing:
		case p == 6:
			le := m.leases[q.scope]
			ok = q.scope != "" && q.token != nil && le.valid && le.token == *q.token
		default:
			if p == 4 && q.op != "" && r.ops[q.op] {
				m.dec[p] = lab.Suppressed
				continue
			}
			ok = q.token != nil && (r.remembered == nil || *q.token >= *r.remembered)
			if p == 3 && ok && r.remembered != nil {
				ok = *q.token > *r.remembered
			}
			if ok && p == 7 && m.laterCommit(id) {
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
		if fencing && p >= 2 && p != 6 {
			r.remembered = q.token
		}
	}
}

func (m *refModel) violate(p int, kind lab.Invariant) {
	v := lab.Violation{Kind: kind, Step: m.cur}
	if !slices.Contains(m.lanes[p].viol, v) {
		m.lanes[p].viol = append(m.lanes[p].viol, v)
	}
}

func (m *refModel) rejected(p int, q *refReq) {
	le := m.leases[q.scope]
	if q.token != nil && q.scope != "" && le.valid && le.token == *q.token {
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
		m.violate(p, lab.UnownedWrite)
	}
	if q.op != "" {
		r.ops[q.op] = true
	}
	m.strs = append(m.strs, q.value)
	r.value = refInt(int64(len(m.strs) - 1))
	r.vtoken = q.token
}

func newRefModel(s *lab.Scenario) *refModel {
	m := &refModel{s: s, leases: map[string]*refLease{}, next: map[string]int64{},
		maxGranted: map[string]int64{}, actors: map[string]*refActor{}, reqs: map[string]*refReq{}}
	for name, sc := range s.Scopes {
		m.leases[name] = &refLease{}
		m.next[name] = sc.FirstToken
	}
	m.leases[""] = &refLease{}
	for p := range m.lanes {
		l := &refLane{res: map[string]*refRes{}, aborted: map[string]bool{}, checked: map[string]bool{}}
		for name := range s.Resources {
			l.res[name] = &refRes{ops: map[string]bool{}, maxApplied: map[string]int64{}}
		}
		m.lanes[p] = l
	}
	return m
}

func refStr[T comparable](p *T) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

func refMap[T comparable](mp map[string]*T) string {
	var parts []string
	for _, k := range lab.SortedNames(mp) {
		parts = append(parts, k+"="+refStr(mp[k]))
	}
	return strings.Join(parts, ",")
}

func refViol(vs []lab.Violation) string {
	var parts []string
	for _, v := range vs {
		parts = append(parts, fmt.Sprintf("%d:%s", v.Step, v.Kind))
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

// refCompare returns the disagreements between the engine and the model.
func refCompare(s *lab.Scenario) []string {
	tr := lab.Replay(s)
	m := newRefModel(s)
	steps := m.run()
	var diffs []string
	for i, st := range tr.Steps {
		ms := steps[i]
		if refStr(st.Token) != refStr(ms.token) {
			diffs = append(diffs, fmt.Sprintf("step %d (%s): token engine %s model %s", i+1, st.Event.Kind, refStr(st.Token), refStr(ms.token)))
		}
		for p, pol := range lab.Policies {
			o := st.Outcomes.Of(pol)
			if o.Decision != ms.dec[p] {
				diffs = append(diffs, fmt.Sprintf("step %d (%s) %s: engine %s (%q) model %s", i+1, st.Event.Kind, pol, o.Decision, o.Reason, ms.dec[p]))
			}
			if a, b := refMap(o.Values)+" "+refMap(o.Tokens), refMap(ms.values[p])+" "+refMap(ms.tokens[p]); a != b {
				diffs = append(diffs, fmt.Sprintf("step %d (%s) %s: values engine %s model %s", i+1, st.Event.Kind, pol, a, b))
			}
		}
	}
	for p, pol := range lab.Policies {
		sum := tr.Summary[pol]
		if a, b := refViol(sum.Violations), refViol(m.lanes[p].viol); a != b {
			diffs = append(diffs, fmt.Sprintf("%s violations: engine [%s] model [%s]", pol, a, b))
		}
		if a, b := refMap(sum.Final), refMap(steps[len(steps)-1].values[p]); a != b {
			diffs = append(diffs, fmt.Sprintf("%s final: engine %s model %s", pol, a, b))
		}
	}
	return diffs
}

func TestReferenceModel(t *testing.T) {
	n, shown := 20000, 0
	if testing.Short() {
		n = 2000
	}
	for seed := 0; seed < n; seed++ {
		js := refGen(rand.New(rand.NewSource(int64(seed))))
		s, err := lab.Parse(strings.NewReader(js))
		if err != nil {
			t.Fatalf("seed %d: generated an invalid scenario: %v\n%s", seed, err, js)
		}
		if d := refCompare(s); len(d) > 0 {
			if shown < 5 {
				t.Errorf("seed %d: %s\n  %s", seed, js, strings.Join(d, "\n  "))
			}
			shown++
		}
	}
	if shown > 0 {
		t.Errorf("%d of %d scenarios disagree", shown, n)
	}
}
