package lab

import (
	"encoding/binary"
	"slices"
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
	sends     []int      // requests of sends: writes are decided at once and never named again
	sendEvent []int      // per request, the index of the event that sent it
	keys      [][]string // per resource, the op keys of the writes and sends to it
}

func newCodec(pr *program) *codec {
	c := &codec{pr: pr, placedLen: placedLen(len(pr.events)),
		sendEvent: make([]int, pr.requests), keys: make([][]string, len(pr.resources))}
	for i, e := range pr.events {
		if e.kind != Write && e.kind != Send {
			continue
		}
		c.sendEvent[e.request] = i
		if e.kind == Send {
			c.sends = append(c.sends, e.request)
		}
		if e.key != "" && !slices.Contains(c.keys[e.resource], e.key) {
			c.keys[e.resource] = append(c.keys[e.resource], e.key)
		}
	}
	for _, k := range c.keys {
		slices.Sort(k)
	}
	return c
}

// encode appends the key of r's state after the events in placed and
// event e (-1: none), with the invariants broken so far.
func (c *codec) encode(buf []byte, r *replayer, placed []byte, e int, v violated) []byte {
	buf = append(buf, placed[:c.placedLen]...)
	if e >= 0 {
		setPlaced(buf[len(buf)-c.placedLen:], e)
	}
	var vb [8]byte
	binary.LittleEndian.PutUint64(vb[:], uint64(v))
	buf = append(buf, vb[:violatedLen]...)
	for _, l := range r.leases {
		buf = append(buf, flagByte(l.valid, l.granted))
		buf = binary.AppendVarint(buf, int64(l.holder))
		buf = appendTokens(buf, l.token, l.next, l.maxGranted)
	}
	for _, w := range r.workers {
		buf = append(buf, flagByte(w.paused, w.crashed, w.hasGrant)|byte(w.answer+1)<<3)
		buf = binary.AppendUvarint(buf, uint64(w.scope))
		buf = appendTokens(buf, w.token)
	}
	for _, q := range c.sends {
		buf = c.appendRequest(buf, &r.requests[q])
	}
	for li := range r.lanes {
		buf = c.appendLane(buf, &r.lanes[li])
	}
	return buf
}

func (c *codec) appendRequest(buf []byte, q *request) []byte {
	buf = append(buf, flagByte(q.sent, q.delivered, q.committed, q.hasToken))
	if q.sent {
		buf = binary.AppendVarint(buf, int64(q.scope))
	}
	if q.hasToken {
		buf = appendTokens(buf, q.token)
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
	buf = append(buf, flagByte(res.hasRem), applied)
	if res.hasRem {
		buf = appendTokens(buf, res.rem)
	}
	for _, m := range res.applied {
		if m.set {
			buf = appendTokens(buf, m.hi)
		}
	}
	n := len(buf)
	buf = append(buf, make([]byte, placedLen(len(c.keys[ri])))...)
	for k, key := range c.keys[ri] {
		if _, ok := res.ops[key]; ok {
			setPlaced(buf[n:], k)
		}
	}
	return buf
}

func appendTokens(buf []byte, tokens ...int64) []byte {
	for _, t := range tokens {
		buf = binary.AppendVarint(buf, t)
	}
	return buf
}

// flagByte packs flags into a byte, the first flag in the lowest bit.
func flagByte(flags ...bool) byte {
	var b byte
	for i, f := range flags {
		if f {
			b |= 1 << i
		}
	}
	return b
}
