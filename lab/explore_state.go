package lab

import (
	"encoding/binary"
)

// violatedLen is the number of bytes of a key that hold the invariants broken.
const violatedLen = (numPolicies*bitsPerPolicy + 7) / 8

// codec writes the replayer's state as a key and reads it back. The key is
// the state: Explore stores nothing else about it, and runs each step on a
// replayer loaded from its key, so whatever the key leaves out cannot
// change a later decision. It holds everything the decisions and the
// invariants read, and nothing kept only for reasons: no step numbers, no
// remembered-how texts, no values (they are shown, never checked).
//
// Layout: the bitset of events run, the invariants broken (6 bytes), then
// per scope the lease, per actor the worker, per send its request, and per
// policy its lane (aborted or pending sends, then per resource the token
// it remembers, the highest token applied per scope, the op keys applied).
type codec struct {
	pr        *program
	placedLen int
	// remInApplied: with fewer than eight scopes, whether a receiver
	// remembers a token is the top bit of its applied scopes' byte.
	remInApplied bool
	sends        []int // requests of sends: writes are decided at once and never named again
	sendEvent    []int // per request, the index of the event that sent it
}

func newCodec(pr *program) *codec {
	c := &codec{pr: pr, placedLen: placedLen(len(pr.events)), remInApplied: len(pr.scopes) < 8,
		sendEvent: make([]int, pr.requests)}
	for i, e := range pr.events {
		if e.kind != Write && e.kind != Send {
			continue
		}
		c.sendEvent[e.request] = i
		if e.kind == Send {
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
	buf = append(buf, vb[:violatedLen]...)
	for i := range r.leases {
		l := &r.leases[i]
		buf = append(buf, bit(l.valid, 0)|bit(l.granted, 1)|byte(l.holder+1)<<2)
		buf = binary.AppendVarint(binary.AppendVarint(binary.AppendVarint(buf, l.token), l.next), l.maxGranted)
	}
	for i := range r.workers {
		w := &r.workers[i]
		buf = append(buf, bit(w.paused, 0)|bit(w.crashed, 1)|bit(w.hasGrant, 2)|byte(w.answer+1)<<3|byte(w.scope)<<5)
		buf = binary.AppendVarint(buf, w.token)
	}
	for _, q := range c.sends {
		buf = c.appendRequest(buf, &r.requests[q])
	}
	if changed == nil {
		for li := range r.lanes {
			buf = c.appendLane(buf, &r.lanes[li])
		}
		return buf
	}
	for li := 0; li < numPolicies; {
		if changed[li] {
			buf = c.appendLane(buf, &r.lanes[li])
			li++
			continue
		}
		// Copy the run of lanes the step left alone in one go.
		end := li + 1
		for end < numPolicies && !changed[end] {
			end++
		}
		buf = append(buf, placed[at[li]:at[end]]...)
		li = end
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
		buf = binary.AppendVarint(buf, q.token)
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
	if c.remInApplied {
		buf = append(buf, applied|bit(res.hasRem, 7))
	} else {
		buf = append(buf, bit(res.hasRem, 0), applied)
	}
	if res.hasRem {
		buf = binary.AppendVarint(buf, res.rem)
	}
	for _, m := range res.applied {
		if m.set {
			buf = binary.AppendVarint(buf, m.hi)
		}
	}
	n := len(buf)
	buf = append(buf, make([]byte, placedLen(len(res.ops)))...)
	for k, at := range res.ops {
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
