package logs

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"fencelab/lab"
)

// lineGaps lists what single lines leave unsaid: a token, a value, an
// observed outcome, an acquire of the actor.
func (b *builder) lineGaps() []Gap {
	var out []Gap
	add := func(kind, words string, e *rawEvent) {
		out = append(out, Gap{Kind: kind, Sources: []string{e.source}, Words: words})
	}
	observing := b.im.m.Observed != nil
	for _, e := range b.events {
		switch e.kind {
		case lab.Write, lab.Send:
			if e.token == nil {
				add("token-assumed", fmt.Sprintf("%s's %s logs no token: the replay assumes its latest grant, but a stale writer is exactly one whose token is not its latest", e.actor, e.kind), e)
			}
			if !e.hasValue {
				add("value-assumed", fmt.Sprintf("%s's %s logs no value: it is shown as \"?\", so the final values cannot be compared", e.actor, e.kind), e)
			}
		case lab.Deliver:
			if e.token == nil {
				add("token-unobserved", fmt.Sprintf("the resource's line for request %q logs no token: the token the resource observed is what tells a stale write from a valid one", e.request), e)
			}
		}
		if observing && (e.kind == lab.Write || e.kind == lab.Deliver) && e.observed == "" {
			add("outcome-unobserved", fmt.Sprintf("no outcome is logged for this %s: which policy the resource follows cannot be told at this step", e.kind), e)
		}
	}
	return append(out, b.actorsWithoutAcquire()...)
}

// actorsWithoutAcquire names each actor that acts but never acquires.
func (b *builder) actorsWithoutAcquire() []Gap {
	acquires := map[string]bool{}
	for _, e := range b.events {
		if e.kind == lab.Acquire {
			acquires[e.actor] = true
		}
	}
	var out []Gap
	for _, e := range b.events {
		if e.actor == "" || acquires[e.actor] || e.kind == lab.Deliver || e.kind == lab.Commit || e.kind == lab.Restart {
			continue
		}
		acquires[e.actor] = true // one gap per actor
		out = append(out, Gap{Kind: "no-acquire", Sources: []string{e.source}, Words: fmt.Sprintf(
			"%s acts but no acquire of its lease is in the logs: its requests carry no grant, so every policy treats it as holding nothing (the lease service's log may be missing, or start too late)", e.actor)})
	}
	return out
}

// window is how close two hosts' events may be and still be unordered:
// the skew, or without one, equal times.
func window(opt Options) time.Duration {
	if opt.Explore {
		return opt.Skew
	}
	return 0
}

// unordered lists each run of events, in time order, each within the
// window of the one before, that involves several hosts: the logs do not
// say their order.
func unordered(evs []*rawEvent, opt Options, sendOf map[*rawEvent]*rawEvent) []Gap {
	d := window(opt)
	var out []Gap
	for i := 0; i < len(evs); {
		j := i + 1
		for j < len(evs) && evs[j].hasTime && evs[j-1].hasTime && evs[j].at.Sub(evs[j-1].at).Abs() <= d {
			j++
		}
		if g, ok := unorderedRun(evs[i:j], d, opt.Explore); ok && !onlyDelivery(evs[i:j], sendOf) {
			out = append(out, g)
		}
		i = j
	}
	return out
}

func unorderedRun(run []*rawEvent, d time.Duration, exploring bool) (Gap, bool) {
	var hosts, sources []string
	for _, e := range run {
		if !slices.Contains(hosts, e.host) {
			hosts = append(hosts, e.host)
		}
		sources = append(sources, e.source)
	}
	if len(hosts) < 2 {
		return Gap{}, false
	}
	near := "have the same time"
	if d > 0 {
		near = "lie within " + d.String() + " of each other"
	}
	words := fmt.Sprintf("%d events of %s %s: the logs do not say their order", len(run), strings.Join(hosts, ", "), near)
	if exploring {
		words += "; the orderings below try every one"
	} else {
		words += "; they are replayed in input order (--skew tries every order)"
	}
	return Gap{Kind: "unordered", Sources: sources, Words: words}, true
}

// onlyDelivery reports whether every pair of events of different hosts
// in the run is ordered by the model anyway: a deliver after its send,
// and so after every earlier event of the send's host.
func onlyDelivery(run []*rawEvent, sendOf map[*rawEvent]*rawEvent) bool {
	for i, a := range run {
		for _, b := range run[i+1:] {
			if a.host != b.host && !beforeDeliver(a, b, run, sendOf) {
				return false
			}
		}
	}
	return true
}

// beforeDeliver reports whether b is a deliver whose send is a or comes
// after a on a's host.
func beforeDeliver(a, b *rawEvent, run []*rawEvent, sendOf map[*rawEvent]*rawEvent) bool {
	s := sendOf[b]
	if s == nil || s.host != a.host {
		return false
	}
	return s == a || slices.Index(run, a) < slices.Index(run, s)
}

// after is the partial order the clocks allow, for lab.ExploreOptions:
// each event follows the previous event of its host and, of every other
// host, the latest earlier event more than the skew before it. A deliver
// follows its send by the model's own rule.
func after(evs []*rawEvent, skew time.Duration) [][]int {
	out := make([][]int, len(evs))
	last := map[string]int{} // host to the 1-based index of its latest event
	for i, e := range evs {
		if j, ok := last[e.host]; ok {
			out[i] = append(out[i], j)
		}
		for h := range sortedHosts(last) {
			if h == e.host {
				continue
			}
			if j := latestBefore(evs[:i], h, e, skew); j > 0 {
				out[i] = append(out[i], j)
			}
		}
		last[e.host] = i + 1
	}
	return out
}

// latestBefore is the 1-based index of host h's latest event among evs
// more than skew before e, or 0.
func latestBefore(evs []*rawEvent, h string, e *rawEvent, skew time.Duration) int {
	if !e.hasTime {
		return 0
	}
	for j := len(evs) - 1; j >= 0; j-- {
		f := evs[j]
		if f.host == h && f.hasTime && e.at.Sub(f.at) > skew {
			return j + 1
		}
	}
	return 0
}

func sortedHosts(last map[string]int) func(func(string) bool) {
	hosts := make([]string, 0, len(last))
	for h := range last {
		hosts = append(hosts, h)
	}
	slices.Sort(hosts)
	return slices.Values(hosts)
}
