package lab

import (
	"encoding/binary"
)

// codec writes the replayer's state as a key and reads it back. The key is
// the state: Explore stores nothing else about it, and runs each step on a
// replayer loaded from its key, so whatever the key leaves out cannot
// change a later decision. It holds everything the decisions and the
// invariants read, and nothing kept only for reasons: no step numbers, no
// remembered-how texts, no values (they are shown, never checked).
//
// Layout: the bitset of events run, the invariants each lane broke
// (bitsPerPolicy bits a lane), then per scope the lease, per actor the
// worker, per send its request, and per lane that runs (one for each group
// of policies that decide alike, groupsOf) its state (aborted or pending
// sends, then per resource the token it remembers, the highest token
// applied per scope, the op keys applied).
//
// The layout is decided once per program, so that what a scenario never
// uses takes no byte: lanes only for the groups of policies; aborted sends
// only in a lane whose worker checks, pending ones only where commits can
// hold a request back; per-scope grants of a worker only with two scopes
// or more; a token per scope only at a per-scope receiver; the receiver's
// own op keys only with keys: memory; stale flags only with rmw writes.
// Within a state, a scope's valid leases are one flag while they are just
// its latest grant (always, without split acquires).
type codec struct {
	pr        *program
	placedLen int
	// lanes is how many lanes a key holds, violatedLen the bytes that
	// hold what they broke.
	lanes, violatedLen int
	// remInApplied: with fewer than eight scopes, whether a receiver
	// remembers a token is the top bit of its applied scopes' byte.
	remInApplied bool
	sends        []int // requests of sends: writes are decided at once and never named again
	sendEvent    []int // per request, the index of the event that sent it
}

// newCodec is the codec of pr's states with the given number of lanes.
func newCodec(pr *program, lanes int) *codec {
	c := &codec{pr: pr, placedLen: placedLen(len(pr.events)), remInApplied: len(pr.scopes) < 8,
		lanes: lanes, violatedLen: (lanes*bitsPerPolicy + 7) / 8, sendEvent: make([]int, pr.requests)}
	for i, e := range pr.events {
		r := e.kind.rule()
		if !r.sends {
			continue
		}
		c.sendEvent[e.request] = i
		if r.takes("id") { // a send, delivered later
			c.sends = append(c.sends, e.request)
		}
	}
	return c
}

// encode appends the key of r's state after the events in placed and
// event e (-1: none), with the invariants broken so far.
func (c *codec) encode(buf []byte, r *replayer, placed []byte, e int, v violated) []byte {
	return c.encodeFrom(buf, r, placed, e, v, nil, nil)
}

// encodeFrom is encode, except that the lanes not marked in changed are
// copied from the key placed, whose lanes start at at.
func (c *codec) encodeFrom(buf []byte, r *replayer, placed []byte, e int, v violated, at *laneOffsets, changed *[numPolicies]bool) []byte {
	buf = append(buf, placed[:c.placedLen]...)
	if e >= 0 {
		setPlaced(buf[len(buf)-c.placedLen:], e)
	}
	var vb [8]byte
	binary.LittleEndian.PutUint64(vb[:], uint64(v))
	buf = append(buf, vb[:c.violatedLen]...)
	for i := range r.leases {
		buf = appendLease(buf, &r.leases[i])
	}
	for i := range r.workers {
		buf = c.appendWorker(buf, &r.workers[i])
	}
	for _, q := range c.sends {
		buf = c.appendRequest(buf, &r.requests[q])
	}
	if changed == nil {
		for li := range r.lanes[:c.lanes] {
			buf = c.appendLane(buf, &r.lanes[li])
		}
		return buf
	}
	for li := 0; li < c.lanes; {
		if changed[li] {
			buf = c.appendLane(buf, &r.lanes[li])
			li++
			continue
		}
		// Copy the run of lanes the step left alone in one go.
		end := li + 1
		for end < c.lanes && !changed[end] {
			end++
		}
		buf = append(buf, placed[at[li]:at[end]]...)
		li = end
	}
	return buf
}

// appendLease writes a scope at the lease service. Its valid leases are
// one flag when they are just the latest grant, as always without split.
func appendLease(buf []byte, l *lease) []byte {
	latestOnly := l.n == 1 && l.room[0] == grant{l.holder, l.token}
	more := l.n > 0 && !latestOnly
	buf = append(buf, bit(l.granted, 0)|bit(latestOnly, 1)|bit(more, 2)|byte(l.holder+1)<<3)
	buf = appendVarint(appendVarint(appendVarint(buf, l.token), l.next), l.maxGranted)
	if !more {
		return buf
	}
	buf = append(buf, byte(l.n))
	for _, g := range l.held() {
		buf = appendVarint(append(buf, byte(g.actor)), g.token)
	}
	return buf
}

// appendWorker writes a worker; with several scopes, its latest grant and
// answer per scope too (with one, they are its latest grant and answer).
func (c *codec) appendWorker(buf []byte, w *worker) []byte {
	buf = append(buf, bit(w.paused, 0)|bit(w.crashed, 1)|bit(w.hasGrant, 2)|byte(w.answer+1)<<3|byte(w.scope)<<5)
	buf = appendVarint(buf, w.token)
	if len(w.grants) < 2 {
		return buf
	}
	for _, g := range w.grants {
		buf = append(buf, bit(g.granted, 0)|byte(g.answer+1)<<1)
		if g.granted {
			buf = appendVarint(buf, g.token)
		}
	}
	return buf
}

func (c *codec) appendRequest(buf []byte, q *request) []byte {
	var scope byte
	if q.sent {
		scope = byte(q.scope + 1)
	}
	buf = append(buf, bit(q.sent, 0)|bit(q.delivered, 1)|bit(q.committed, 2)|bit(q.hasToken, 3)|scope<<4)
	if q.hasToken {
		buf = appendVarint(buf, q.token)
	}
	return buf
}

func (c *codec) appendLane(buf []byte, l *lane) []byte {
	if l.workerChecks {
		buf = c.appendSends(buf, l.aborted)
	}
	if l.commitsLater {
		buf = c.appendSends(buf, l.pending)
	}
	for ri := range l.res {
		buf = c.appendReceiver(buf, ri, &l.res[ri])
	}
	if l.seen != nil {
		buf = c.appendStale(buf, l)
	}
	return buf
}

// appendStale writes which actors are stale at which resource, and which
// rmw sends are (model 3).
func (c *codec) appendStale(buf []byte, l *lane) []byte {
	n := len(buf)
	buf = append(buf, make([]byte, placedLen(len(l.seen)+len(c.sends)))...)
	for k, v := range l.seen {
		if v.stale {
			setPlaced(buf[n:], k)
		}
	}
	for j, q := range c.sends {
		if l.fresh[q].stale {
			setPlaced(buf[n:], len(l.seen)+j)
		}
	}
	return buf
}

// appendSends appends one bit per send, from a slice indexed by request.
func (c *codec) appendSends(buf []byte, set []bool) []byte {
	n := len(buf)
	buf = append(buf, make([]byte, placedLen(len(c.sends)))...)
	for j, q := range c.sends {
		if set[q] {
			setPlaced(buf[n:], j)
		}
	}
	return buf
}

func (c *codec) appendReceiver(buf []byte, ri int, res *receiver) []byte {
	var applied byte
	for s, m := range res.applied {
		if m.set {
			applied |= 1 << s
		}
	}
	rem := res.rems[0]
	if c.remInApplied {
		buf = append(buf, applied|bit(rem.has, 7))
	} else {
		buf = append(buf, bit(rem.has, 0), applied)
	}
	if rem.has {
		buf = appendVarint(buf, rem.t)
	}
	for _, m := range res.applied {
		if m.set {
			buf = appendVarint(buf, m.hi)
		}
	}
	for _, s := range res.rems[1:] {
		buf = append(buf, bit(s.has, 0))
		if s.has {
			buf = appendVarint(buf, s.t)
		}
	}
	buf = appendOps(buf, res.ops)
	if c.pr.keysMemory[ri] {
		buf = appendOps(buf, res.keys)
	}
	return buf
}

// appendOps writes which op keys were applied, one bit each.
func appendOps(buf []byte, ops []int32) []byte {
	n := len(buf)
	buf = append(buf, make([]byte, placedLen(len(ops)))...)
	for k, at := range ops {
		if at != 0 {
			setPlaced(buf[n:], k)
		}
	}
	return buf
}

// bit is 1<<i when f is set.
func bit(f bool, i uint) byte {
	var b byte
	if f {
		b = 1
	}
	return b << i
}

// appendVarint is binary.AppendVarint, with the one-byte case (nearly
// every token) done inline.
func appendVarint(buf []byte, v int64) []byte {
	if -64 <= v && v < 64 {
		return append(buf, byte(v<<1^v>>63))
	}
	return binary.AppendVarint(buf, v)
}
