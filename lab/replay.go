package lab

// Replay runs a validated scenario (from Parse) under every policy and
// returns the trace. It never fails: events that cannot happen are skipped
// with a warning, and refusals and rejections are outcomes.
func Replay(s *Scenario) *Trace {
	var r replayer // on the stack: only what the trace keeps is allocated
	r.init(s)
	for i := range r.pr.events {
		r.step(i)
	}
	return r.trace()
}

// lease is one scope at the lease service. The lease service and the
// workers behave the same under every policy, so they are kept once.
// holder, token and ended are about the scope's latest grant; held lists
// every valid lease in grant order (model 3: more than one after a split
// grant), the last being the current holder's.
type lease struct {
	next       int64
	holder     int // actor index, -1 before any grant
	token      int64
	ended      string // "expired", "was released", ... once the latest grant is no longer valid
	granted    bool
	maxGranted int64 // the observer's record: kept across a restart of the scope
	// room holds the valid leases, n of them: room itself is never
	// replaced (a slice header written at every step of an exploration
	// would cost a write barrier), only n and its elements change.
	room []grant
	n    int
}

// worker is one actor. answer is about its latest check or renew since
// its latest grant, whatever the scope; grants holds, per scope, its
// latest grant and its latest answer about that scope since (model 3).
type worker struct {
	paused, crashed bool
	hasGrant        bool
	scope           int
	token           int64
	answer          int8 // 0: no check since the latest grant; 1 valid; -1 not valid
	answerStep      int
	answerWhy       string
	grants          []scopeGrant
}

// scopeGrant is a worker's latest grant of one scope, and the answer of its
// latest check or renew of that scope since.
type scopeGrant struct {
	granted   bool
	token     int64
	answer    int8
	answerWhy string
}

// request is one write or send, as the worker sent it.
type request struct {
	sent, delivered, committed bool
	deliveredAt, committedAt   int
	actor, scope, resource     int
	hasToken                   bool
	token                      int64
	value                      *string
	key                        string
	opKey                      int // -1: no op key
	rmw                        bool
}

type replayer struct {
	s        *Scenario
	pr       *program
	leases   []lease
	workers  []worker
	requests []request
	lanes    [numPolicies]lane
	// nl is how many lanes run, lanes[:nl]: every policy's in a replay,
	// in policy order; while exploring, one for each group of policies
	// that decide alike (groupsOf), and steps' outcomes are then by lane.
	nl       int
	steps    []Step
	warnings []Warning
	// memo holds the snapshots made at the current step, so that lanes
	// applying the same request to the same snapshot share the result;
	// texts the reasons cat built at this step. Each lane adds at most one
	// of each a step. Arrays, not slices: Replay's replayer holds no
	// pointer to itself, so it can live on the stack.
	memo          [numPolicies]snapMemo
	texts         [numPolicies]textMemo
	nmemo, ntexts int
	// text holds the reasons, warnings and request ids of a full replay;
	// tokens the steps' tokens, one slot a step.
	text   text
	tokens []int64
	// snaps counts the snapshots made, to name each.
	snaps int
	// placed is set while exploring orderings (explore.go): a bitset of the
	// events already run, by their index in the file. Nil in Replay, where
	// the order is the file's.
	placed []byte
	// quiet replays decisions only, for exploring: outcomes get their
	// decision but no reason, values or tokens; steps keep no event, token
	// or warning. Every decision and violation is as in a full replay.
	quiet bool
}

// say joins parts into a reason, or builds nothing when the replay is quiet.
func (r *replayer) say(parts ...string) string {
	if r.quiet {
		return ""
	}
	return r.text.join(parts...)
}

// cat joins parts into a reason, reusing the string when another lane
// built the same one at this step: most policies agree on most steps.
func (r *replayer) cat(a, b, c, d, e, f, g string) string {
	if r.quiet {
		return ""
	}
	key := [7]string{a, b, c, d, e, f, g}
	for _, m := range r.texts[:r.ntexts] {
		if m.parts == key {
			return m.s
		}
	}
	s := r.text.join(a, b, c, d, e, f, g)
	if r.ntexts < len(r.texts) {
		r.texts[r.ntexts] = textMemo{key, s}
		r.ntexts++
	}
	return s
}

type textMemo struct {
	parts [7]string
	s     string
}

type snapMemo struct {
	from    int // the snapshot's id
	to      snapshot
	request int
}

func newReplayer(s *Scenario) *replayer {
	r := &replayer{}
	r.init(s)
	return r
}

// init sets up r, which must be zero, to replay s.
func (r *replayer) init(s *Scenario) {
	r.s, r.warnings = s, []Warning{}
	r.text.size = textChunk(len(s.Events))
	pr := programOf(s, &r.text)
	r.pr = pr
	r.leases = make([]lease, len(pr.scopes))
	r.workers = make([]worker, len(pr.actors))
	r.requests = make([]request, pr.requests)
	r.steps = make([]Step, len(pr.events))
	r.tokens = make([]int64, len(pr.events))
	na, ns := len(pr.actors), len(pr.scopes)
	held, grants := make([]grant, ns*na), make([]scopeGrant, na*ns)
	for i := range r.leases {
		r.leases[i] = lease{next: pr.firstToken[i], holder: -1, room: held[i*na : (i+1)*na : (i+1)*na]}
	}
	for i := range r.workers {
		r.workers[i].grants = grants[i*ns : (i+1)*ns : (i+1)*ns]
	}
	r.runLanes(everyLane().run)
}

// runLanes sets up lane j to run policy run[j], afresh, and only those.
func (r *replayer) runLanes(run []int) {
	pr := r.pr
	snap := snapshot{values: pr.noValues, tokens: pr.noTokens, versions: pr.noVersions}
	res := newReceivers(pr)
	flags := laneFlags(pr)
	for j, p := range run {
		r.lanes[j] = lane{}
		r.lanes[j].init(p, pr, res[p], snap, &flags)
	}
	r.nl = len(run)
}

// token gives step i's token a place that outcomes can point to.
func (r *replayer) token(i int, t int64) *int64 {
	r.tokens[i] = t
	return &r.tokens[i]
}

func (r *replayer) step(i int) {
	e := r.pr.events[i]
	var q request
	if e.kind == Write || e.kind == Send {
		q = r.buildRequest(e)
	}
	if !r.quiet {
		r.describeStep(i, e, &q)
	}
	r.nmemo, r.ntexts = 0, 0
	if k := r.skipOf(e); k != canRun {
		r.skip(i, e, k)
		return
	}
	switch e.kind {
	case Acquire:
		r.acquire(i, e)
	case Read:
		r.read(i, e)
	case Pause:
		r.pause(i, e)
	case Resume:
		r.workers[e.actor].paused = false
		r.all(i, OK, r.say(r.actor(e), " resumes, unaware of the time that passed"))
	case Crash:
		r.workers[e.actor].crashed = true
		r.all(i, OK, r.say(r.actor(e), " crashes and never comes back"))
	case Expire, Release:
		r.end(i, e)
	case Renew:
		r.renew(i, e)
	case Check:
		r.check(i, e)
	case Write, Send:
		r.send(i, e, q)
	case Deliver:
		r.deliver(i, e)
	case Commit:
		r.commit(i, e)
	case Restart:
		r.restart(i, e)
	}
}

func (r *replayer) pause(i int, e op) {
	w := &r.workers[e.actor]
	w.paused = true
	if w.hasGrant && r.holds(e.actor, w.scope) {
		r.all(i, OK, r.say(r.actor(e), " pauses; its lease on ", r.pr.scopes[w.scope], " keeps running"))
		return
	}
	r.all(i, OK, r.say(r.actor(e), " pauses"))
}

// describeStep fills in what a full replay shows of step i besides the
// outcomes: the event with its defaults, and the token it involves. A
// write carries its token whether or not it can happen here, so a skipped
// one shows the token it would have carried.
func (r *replayer) describeStep(i int, e op, q *request) {
	st := &r.steps[i]
	st.Index = i + 1
	st.Event = r.s.Events[i]
	switch e.kind {
	case Write, Send:
		r.fillRequest(i, e, q)
	case Deliver, Commit:
		if rq := &r.requests[e.request]; rq.sent && rq.hasToken {
			st.Token = r.token(i, rq.token)
		}
	}
}

// skip records step i as skipped for the reason k.
func (r *replayer) skip(i int, e op, k skipKind) {
	if r.quiet {
		r.all(i, Skipped, "")
		return
	}
	msg := r.skipMessage(e, k)
	r.steps[i].Warning = msg
	r.warnings = append(r.warnings, Warning{Step: i + 1, Message: msg})
	r.all(i, Skipped, r.say("skipped: ", msg))
}

// skipKind says why an event cannot happen at its place.
type skipKind int8

const (
	canRun skipKind = iota
	crashedAgain
	crashed
	pausedAgain
	paused
	notPaused
	notHolder
	notSent
	deliveredAgain
	notDelivered
	committedAgain
)

// skipOf says whether, and why, an event cannot happen at its place.
func (r *replayer) skipOf(e op) skipKind {
	if e.actor >= 0 {
		w := r.workers[e.actor]
		switch {
		case w.crashed && e.kind == Crash:
			return crashedAgain
		case w.crashed && e.kind != Expire:
			return crashed
		case w.paused && e.kind == Pause:
			return pausedAgain
		case w.paused && e.kind != Resume && e.kind != Expire && e.kind != Crash:
			return paused
		case !w.paused && e.kind == Resume:
			return notPaused
		}
	}
	switch e.kind {
	case Expire, Release:
		if !r.holds(e.actor, e.scope) {
			return notHolder
		}
	case Deliver, Commit:
		q := r.requests[e.request]
		switch {
		case e.kind == Deliver && !q.sent:
			return notSent
		case e.kind == Deliver && q.delivered:
			return deliveredAgain
		case e.kind == Commit && !q.delivered:
			return notDelivered
		case e.kind == Commit && q.committed:
			return committedAgain
		}
	}
	return canRun
}

// skipMessage is the warning of a skipped event.
func (r *replayer) skipMessage(e op, k skipKind) string {
	name, id := "", ""
	if e.actor >= 0 {
		name = r.actor(e)
	}
	if e.request >= 0 {
		id = r.pr.requestIDs[e.request]
	}
	switch k {
	case crashedAgain:
		return r.say(name, " has already crashed")
	case crashed:
		return r.say(name, " has crashed and does nothing more")
	case pausedAgain:
		return r.say(name, " is already paused")
	case paused:
		return r.say(name, " is paused and cannot ", string(e.kind), " until it resumes")
	case notPaused:
		return r.say(name, " is not paused")
	case notHolder:
		return r.say(name, " does not validly hold ", r.pr.scopes[e.scope], ", so it cannot ", string(e.kind))
	case notSent:
		return r.say("request ", id, " has not been sent yet")
	case deliveredAgain:
		return r.say("request ", id, " was already delivered at step ", r.itoa(int64(r.requests[e.request].deliveredAt+1)))
	case notDelivered:
		return r.say("request ", id, " has not been delivered yet")
	case committedAgain:
		return r.say("request ", id, " was already committed at step ", r.itoa(int64(r.requests[e.request].committedAt+1)))
	}
	return ""
}

// holds reports whether actor validly holds scope at this moment.
func (r *replayer) holds(actor, scope int) bool {
	if actor < 0 || scope < 0 {
		return false
	}
	return r.leases[scope].find(actor) >= 0
}

// isCurrent reports whether actor is the current holder of scope (model
// 3): the actor of the latest-granted valid lease.
func (r *replayer) isCurrent(actor, scope int) bool {
	if scope < 0 {
		return false
	}
	g, ok := r.leases[scope].current()
	return ok && g.actor == actor
}

// commitFollows reports whether a commit naming request q comes later than
// step i: in the file's order for Replay; while exploring, when a commit
// naming q has not run yet.
func (r *replayer) commitFollows(q, i int) bool {
	if r.placed == nil {
		return r.pr.lastCommit[q] > i
	}
	for _, c := range r.pr.commits[q] {
		if !isPlaced(r.placed, c) {
			return true
		}
	}
	return false
}

func (r *replayer) actor(e op) string { return r.pr.actors[e.actor] }

// all gives every policy the same outcome at step i.
func (r *replayer) all(i int, d Decision, reason string) {
	for li := range r.lanes[:r.nl] {
		r.set(i, li, d, reason)
	}
}

// set records policy li's outcome at step i with its resources as they are
// now; only the decision when the replay is quiet.
func (r *replayer) set(i, li int, d Decision, reason string) {
	if r.quiet {
		r.steps[i].Outcomes[li].Decision = d
		return
	}
	// Field by field: assigning a whole Outcome copies it with a bulk
	// write barrier, which costs more while the collector runs.
	l, o := &r.lanes[li], &r.steps[i].Outcomes[li]
	o.Decision, o.Reason, o.Values, o.Tokens, o.Versions = d, reason, l.snap.values, l.snap.tokens, l.snap.versions
}

// traceBlock is a trace with the storage of its policies, allocated at once.
type traceBlock struct {
	t        Trace
	policies [numPolicies]Policy
}

func (r *replayer) trace() *Trace {
	tb := &traceBlock{policies: policies}
	t := &tb.t
	*t = Trace{Policies: tb.policies[:], Steps: r.steps, Warnings: r.warnings, Summary: make(map[Policy]Summary, numPolicies)}
	for li := range r.lanes[:r.nl] {
		l := &r.lanes[li]
		t.Summary[l.policy] = Summary{Final: l.snap.values, Violations: l.violations}
	}
	return t
}
