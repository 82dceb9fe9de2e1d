package lab

import (
	"slices"
	"strconv"
)

// program is a validated scenario resolved to indices, so that the replay
// loop touches slices, not maps. Nothing writes to a program once built:
// the replays of a parsed scenario, running at the same time, share one.
type program struct {
	actors     []string
	scopes     []string
	resources  []string
	firstToken []int64
	fencing    []bool
	memory     []bool
	// Model 3: scopes whose lease service forgets at a restart, receivers
	// that forget their op keys, receivers with a token per scope, and
	// whether any write is an rmw (only then are versions and staleness
	// kept and shown).
	scopeMemory []bool
	keysMemory  []bool
	perScope    []bool
	hasRMW      bool
	events      []op
	requests    int
	requestIDs  []string // a send's id; a write's generated "#N"
	// lastCommit is, per request, the index of the last commit naming it, or -1.
	lastCommit []int
	// commits lists, per request, the indices of the commits naming it.
	commits [][]int
	// opKeys lists, per resource, the op keys of its writes and sends, in
	// the order they first appear; an op's opKey indexes it.
	opKeys [][]string
	// noValues and noTokens are every resource with nothing written yet,
	// the outcomes' maps until a write.
	noValues   map[string]*string
	noTokens   map[string]*int64
	noVersions map[string]int // nil unless hasRMW
	// actorBuf backs actors while there are few.
	actorBuf [4]string
}

// op is one event resolved to indices; -1 means "none".
type op struct {
	kind      Kind
	actor     int
	scope     int
	resource  int
	request   int
	token     *int64
	tokenNull bool
	value     *string
	key       string
	opKey     int // the index of key in its resource's opKeys
	split     bool
	rmw       bool
}

func compile(s *Scenario) *program {
	pr := &program{}
	pr.build(s, &text{})
	return pr
}

// compiled is the program Parse made of a scenario, with a copy of the
// events it was made from, so that replaying the scenario again does not
// compile it again. A Scenario's fields can be changed after Parse, so the
// program is used only while the scenario still matches it, checked at
// every use; a program is never changed once made, so replays running at
// the same time can share it.
type compiled struct {
	pr     *program
	events []Event
}

func newCompiled(s *Scenario) *compiled {
	return &compiled{pr: compile(s), events: slices.Clone(s.Events)}
}

// programOf is s's program: the one Parse made while s still matches it,
// else one compiled now, with its texts written in t.
func programOf(s *Scenario, t *text) *program {
	if c := s.compiled; c != nil && c.matches(s) {
		return c.pr
	}
	pr := &program{}
	pr.build(s, t)
	return pr
}

// matches reports whether compiling s now would give c.pr: the same events
// (with the same pointers, which the program keeps, so a changed token or
// value behind them shows in both) and the same declarations.
func (c *compiled) matches(s *Scenario) bool {
	pr := c.pr
	if !slices.Equal(s.Events, c.events) || len(s.Scopes) != len(pr.scopes) || len(s.Resources) != len(pr.resources) {
		return false
	}
	for i, name := range pr.scopes {
		if sc, ok := s.Scopes[name]; !ok || sc.FirstToken != pr.firstToken[i] || (sc.Remember == Memory) != pr.scopeMemory[i] {
			return false
		}
	}
	for i, name := range pr.resources {
		rs, ok := s.Resources[name]
		if !ok || rs.Fencing != pr.fencing[i] || (rs.Remember == Memory) != pr.memory[i] ||
			(rs.Keys == Memory) != pr.keysMemory[i] || (rs.Tokens == PerScopeTokens) != pr.perScope[i] {
			return false
		}
	}
	return true
}

// build resolves s into pr, writing the ids of writes into t. Slices of the
// same type share one allocation.
func (pr *program) build(s *Scenario, t *text) {
	ns := len(s.Scopes)
	names := make([]string, 0, ns+len(s.Resources))
	names = appendSorted(names, s.Scopes)
	pr.scopes = names[:ns:ns]
	pr.resources = appendSorted(names, s.Resources)[ns:]
	pr.firstToken = make([]int64, ns)
	nr := len(pr.resources)
	flags := make([]bool, 4*nr+ns)
	pr.fencing, pr.memory, pr.keysMemory = flags[:nr:nr], flags[nr:2*nr:2*nr], flags[2*nr:3*nr:3*nr]
	pr.perScope, pr.scopeMemory = flags[3*nr:4*nr:4*nr], flags[4*nr:]
	for i, name := range pr.scopes {
		pr.firstToken[i] = s.Scopes[name].FirstToken
		pr.scopeMemory[i] = s.Scopes[name].Remember == Memory
	}
	for i, name := range pr.resources {
		rs := s.Resources[name]
		pr.fencing[i], pr.memory[i] = rs.Fencing, rs.Remember == Memory
		pr.keysMemory[i], pr.perScope[i] = rs.Keys == Memory, rs.Tokens == PerScopeTokens
	}
	pr.noValues, pr.noTokens = make(map[string]*string, nr), make(map[string]*int64, nr)
	for _, name := range pr.resources {
		pr.noValues[name], pr.noTokens[name] = nil, nil
	}
	for _, e := range s.Events {
		pr.hasRMW = pr.hasRMW || e.Kind.rule().sends && e.IsRMW()
	}
	if pr.hasRMW {
		pr.noVersions = make(map[string]int, nr)
		for _, name := range pr.resources {
			pr.noVersions[name] = 0
		}
	}
	pr.actors = pr.actorBuf[:0]
	pr.opKeys = make([][]string, len(pr.resources))
	pr.events = make([]op, len(s.Events))
	commits := pr.resolve(s)
	pr.requestIDs = make([]string, pr.requests)
	ids := pr.nameRequests(s, t)
	pr.resolveCommits(s, ids, commits)
}

// appendSorted appends the keys of m in order.
func appendSorted[V any](dst []string, m map[string]V) []string {
	n := len(dst)
	for k := range m {
		dst = append(dst, k)
	}
	slices.Sort(dst[n:])
	return dst
}

// resolve fills in pr.events but for the requests of delivers and commits,
// numbers the requests, and returns how many commits there are.
func (pr *program) resolve(s *Scenario) (commits int) {
	for i := range s.Events {
		e := &s.Events[i]
		o := op{kind: e.Kind, actor: -1, scope: indexOf(pr.scopes, e.Scope), resource: indexOf(pr.resources, e.Resource),
			request: -1, token: e.Token, tokenNull: e.TokenNull, value: e.Value, key: e.Op, opKey: -1,
			split: e.IsSplit(), rmw: e.IsRMW()}
		if e.Op != "" && o.resource >= 0 {
			if o.opKey = slices.Index(pr.opKeys[o.resource], e.Op); o.opKey < 0 {
				o.opKey = len(pr.opKeys[o.resource])
				pr.opKeys[o.resource] = append(pr.opKeys[o.resource], e.Op)
			}
		}
		if e.Actor != "" {
			if o.actor = indexOf(pr.actors, e.Actor); o.actor < 0 {
				o.actor = len(pr.actors)
				pr.actors = append(pr.actors, e.Actor)
			}
		}
		if r := e.Kind.rule(); r.sends {
			o.request = pr.requests
			pr.requests++
		} else if r.commits {
			commits++
		}
		pr.events[i] = o
	}
	return commits
}

// nameRequests names every request and returns the sends' requests by id.
func (pr *program) nameRequests(s *Scenario, t *text) map[string]int {
	var ids map[string]int
	for i, o := range pr.events {
		switch r := o.kind.rule(); {
		case !r.sends:
		case !r.takes("id"): // a write has no id of its own: its place names it
			pr.requestIDs[o.request] = t.join("#", t.int(int64(i+1))) // writeID(i+1)
		default:
			if ids == nil {
				ids = make(map[string]int)
			}
			pr.requestIDs[o.request] = s.Events[i].ID
			ids[s.Events[i].ID] = o.request
		}
	}
	return ids
}

// resolveCommits resolves the requests of delivers and commits, and lists
// each request's commits.
func (pr *program) resolveCommits(s *Scenario, ids map[string]int, commits int) {
	for i, e := range s.Events {
		if e.Kind.rule().namesRequest() {
			pr.events[i].request = ids[e.Request]
		}
	}
	n := pr.requests
	ints := make([]int, n+n+1+commits)
	pr.lastCommit, ints = ints[:n:n], ints[n:]
	for q := range pr.lastCommit {
		pr.lastCommit[q] = -1
	}
	// Count each request's commits, then give each request its part of
	// the backing array.
	at, backing := ints[:n+1], ints[n+1:]
	for _, o := range pr.events {
		if o.kind.rule().commits {
			at[o.request+1]++
		}
	}
	for q := range n {
		at[q+1] += at[q]
	}
	pr.commits = make([][]int, n)
	for q := range pr.commits {
		pr.commits[q] = backing[at[q]:at[q]:at[q+1]]
	}
	for i, o := range pr.events {
		if o.kind.rule().commits {
			pr.lastCommit[o.request] = i
			pr.commits[o.request] = append(pr.commits[o.request], i)
		}
	}
}

// writeID names the request of the write at step n. "#" is not allowed in
// a send's id, so the name never collides with one.
func writeID(n int) string { return "#" + strconv.Itoa(n) }

func indexOf(list []string, name string) int {
	if name == "" {
		return -1
	}
	return slices.Index(list, name)
}

// hasOpKeys reports whether any write or send carries an op key.
func (pr *program) hasOpKeys() bool {
	for _, ks := range pr.opKeys {
		if len(ks) > 0 {
			return true
		}
	}
	return false
}

// hasCommits reports whether any event is a commit.
func (pr *program) hasCommits() bool {
	return slices.ContainsFunc(pr.events, func(e op) bool { return e.kind.rule().commits })
}
