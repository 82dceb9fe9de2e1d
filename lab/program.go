package lab

import (
	"slices"
	"strconv"
)

// program is a validated scenario resolved to indices, so that the replay
// loop touches slices, not maps.
type program struct {
	actors     []string
	scopes     []string
	resources  []string
	firstToken []int64
	fencing    []bool
	memory     []bool
	events     []op
	requests   int
	requestIDs []string // a send's id; a write's generated "#N"
	// lastCommit is, per request, the index of the last commit naming it, or -1.
	lastCommit []int
	// commits lists, per request, the indices of the commits naming it.
	commits [][]int
	// opKeys lists, per resource, the op keys of its writes and sends, in
	// the order they first appear; an op's opKey indexes it.
	opKeys [][]string
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
}

func compile(s *Scenario) *program {
	pr := &program{scopes: sortedKeys(s.Scopes), resources: sortedKeys(s.Resources),
		actors: make([]string, 0, 4), requestIDs: make([]string, 0, len(s.Events))}
	for _, name := range pr.scopes {
		pr.firstToken = append(pr.firstToken, s.Scopes[name].FirstToken)
	}
	for _, name := range pr.resources {
		pr.fencing = append(pr.fencing, s.Resources[name].Fencing)
		pr.memory = append(pr.memory, s.Resources[name].Remember == Memory)
	}
	ids := map[string]int{}
	pr.opKeys = make([][]string, len(pr.resources))
	pr.events = make([]op, len(s.Events))
	for i, e := range s.Events {
		o := op{kind: e.Kind, actor: -1, scope: indexOf(pr.scopes, e.Scope), resource: indexOf(pr.resources, e.Resource),
			request: -1, token: e.Token, tokenNull: e.TokenNull, value: e.Value, key: e.Op, opKey: -1}
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
		switch e.Kind {
		case Write, Send:
			o.request = pr.requests
			pr.requests++
			id := writeID(i + 1)
			if e.Kind == Send {
				id = e.ID
				ids[e.ID] = o.request
			}
			pr.requestIDs = append(pr.requestIDs, id)
		}
		pr.events[i] = o
	}
	pr.lastCommit = make([]int, pr.requests)
	pr.commits = make([][]int, pr.requests)
	for i := range pr.lastCommit {
		pr.lastCommit[i] = -1
	}
	for i, e := range s.Events {
		if e.Kind == Deliver || e.Kind == Commit {
			pr.events[i].request = ids[e.Request]
			if e.Kind == Commit {
				pr.lastCommit[ids[e.Request]] = i
				pr.commits[ids[e.Request]] = append(pr.commits[ids[e.Request]], i)
			}
		}
	}
	return pr
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
