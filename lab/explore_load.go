package lab

import "encoding/binary"

// load sets r to the state of key, as written by encode, and returns where
// each lane's part of the key starts. What encode leaves out is reset
// (violations, warnings) or left as it is because no decision reads it
// (reasons, values, the requests of writes).
func (c *codec) load(r *replayer, key []byte) (at laneOffsets) {
	r.placed = key[:c.placedLen]
	rd := reader{b: key, i: c.placedLen + c.violatedLen}
	for i := range r.leases {
		loadLease(&rd, &r.leases[i])
	}
	for i := range r.workers {
		loadWorker(&rd, &r.workers[i])
	}
	for _, q := range c.sends {
		c.loadRequest(&rd, r, q)
	}
	for li := range r.lanes[:c.lanes] {
		at[li] = rd.i
		c.loadLane(&rd, &r.lanes[li])
	}
	at[c.lanes] = rd.i
	r.warnings = r.warnings[:0]
	return at
}

func loadLease(rd *reader, l *lease) {
	b := rd.byte()
	l.granted, l.holder = b&1 != 0, int(b>>3)-1
	l.token, l.next, l.maxGranted = rd.varint(), rd.varint(), rd.varint()
	l.n = 0
	switch {
	case b&2 != 0:
		l.add(grant{l.holder, l.token})
	case b&4 != 0:
		for n := int(rd.byte()); n > 0; n-- {
			a := int(rd.byte())
			l.add(grant{a, rd.varint()})
		}
	}
}

func loadWorker(rd *reader, w *worker) {
	b := rd.byte()
	w.paused, w.crashed, w.hasGrant = b&1 != 0, b&2 != 0, b&4 != 0
	w.answer = int8(b>>3&3) - 1
	w.scope = int(b >> 5)
	w.token = rd.varint()
	if len(w.grants) == 1 {
		w.grants[0] = scopeGrant{granted: w.hasGrant, token: w.token, answer: w.answer}
		return
	}
	for k := range w.grants {
		g := &w.grants[k]
		b := rd.byte()
		g.granted, g.answer, g.token = b&1 != 0, int8(b>>1&3)-1, 0
		if g.granted {
			g.token = rd.varint()
		}
	}
}

// laneOffsets are where each lane's part of a key starts, and where the
// last one ends (at the index of the number of lanes).
type laneOffsets [numPolicies + 1]int

// loadRequest restores a send's request: what it carries from its event,
// and what the replay decided when it was sent.
func (c *codec) loadRequest(rd *reader, r *replayer, q int) {
	b := rd.byte()
	e := &c.pr.events[c.sendEvent[q]]
	rq := request{sent: b&1 != 0, delivered: b&2 != 0, committed: b&4 != 0, hasToken: b&8 != 0, opKey: -1}
	if rq.sent {
		rq.actor, rq.resource, rq.value, rq.key, rq.opKey, rq.rmw = e.actor, e.resource, e.value, e.key, e.opKey, e.rmw
		rq.scope = int(b>>4) - 1
	}
	if rq.hasToken {
		rq.token = rd.varint()
	}
	r.requests[q] = rq
}

func (c *codec) loadLane(rd *reader, l *lane) {
	if l.workerChecks {
		c.loadSends(rd, l.aborted)
	}
	if l.commitsLater {
		c.loadSends(rd, l.pending)
	}
	for ri := range l.res {
		c.loadReceiver(rd, ri, &l.res[ri])
	}
	if l.seen != nil {
		c.loadStale(rd, l)
	}
	l.violations = l.violations[:0]
}

// loadStale reads what appendStale wrote. What only reasons read (whose
// write, the version read) is left as it is.
func (c *codec) loadStale(rd *reader, l *lane) {
	bits := rd.bytes(placedLen(len(l.seen) + len(c.sends)))
	for k := range l.seen {
		l.seen[k].stale = isPlaced(bits, k)
	}
	for j, q := range c.sends {
		l.fresh[q].stale = isPlaced(bits, len(l.seen)+j)
	}
}

func (c *codec) loadSends(rd *reader, set []bool) {
	bits := rd.bytes(placedLen(len(c.sends)))
	for j, q := range c.sends {
		set[q] = isPlaced(bits, j)
	}
}

func (c *codec) loadReceiver(rd *reader, ri int, res *receiver) {
	var b, applied byte
	if c.remInApplied {
		applied = rd.byte()
		b, applied = applied>>7, applied&0x7f
	} else {
		b, applied = rd.byte(), rd.byte()
	}
	rem := &res.rems[0]
	rem.has, rem.t = b&1 != 0, 0
	if rem.has {
		rem.t = rd.varint()
	}
	for s := range res.applied {
		res.applied[s] = mark{}
		if applied&(1<<s) != 0 {
			res.applied[s] = mark{set: true, hi: rd.varint()}
		}
	}
	for k := range res.rems[1:] {
		s := &res.rems[k+1]
		s.has, s.t = rd.byte()&1 != 0, 0
		if s.has {
			s.t = rd.varint()
		}
	}
	loadOps(rd, res.ops)
	if c.pr.keysMemory[ri] {
		loadOps(rd, res.keys)
	}
}

// loadOps reads what appendOps wrote. The step an op was applied at is
// not kept: no decision reads it.
func loadOps(rd *reader, ops []int32) {
	bits := rd.bytes(placedLen(len(ops)))
	for k := range ops {
		ops[k] = 0
		if isPlaced(bits, k) {
			ops[k] = 1
		}
	}
}

// reader reads what encode wrote. Keys come from this package alone, so a
// short or malformed key is a bug: it panics.
type reader struct {
	b []byte
	i int
}

func (rd *reader) byte() byte {
	rd.i++
	return rd.b[rd.i-1]
}

func (rd *reader) bytes(n int) []byte {
	rd.i += n
	return rd.b[rd.i-n : rd.i]
}

func (rd *reader) varint() int64 {
	// Tokens are small: nearly every varint is one byte, decoded here
	// without the call binary.Varint costs.
	if b := rd.b[rd.i]; b < 0x80 {
		rd.i++
		return int64(b>>1) ^ -int64(b&1)
	}
	v, n := binary.Varint(rd.b[rd.i:])
	if n <= 0 {
		panic("lab: malformed state key")
	}
	rd.i += n
	return v
}

// restore sets dst to the state src was loaded with, as load would have,
// copied without decoding; of the lanes, only those marked in changed.
// Both replay the same program.
func (c *codec) restore(dst, src *replayer, changed *[numPolicies]bool) {
	dst.placed = src.placed
	// Field by field, the fields load sets: none is a pointer, so the
	// copies need no write barrier while the collector runs.
	for i := range dst.leases {
		d, s := &dst.leases[i], &src.leases[i]
		d.granted, d.holder = s.granted, s.holder
		d.token, d.next, d.maxGranted = s.token, s.next, s.maxGranted
		d.n = s.n
		copy(d.room[:s.n], s.room[:s.n])
	}
	for i := range dst.workers {
		d, s := &dst.workers[i], &src.workers[i]
		d.paused, d.crashed, d.hasGrant, d.answer = s.paused, s.crashed, s.hasGrant, s.answer
		d.scope, d.token = s.scope, s.token
		for k := range d.grants {
			dg, sg := &d.grants[k], &s.grants[k]
			dg.granted, dg.token, dg.answer = sg.granted, sg.token, sg.answer
		}
	}
	for _, q := range c.sends {
		d, s := &dst.requests[q], &src.requests[q]
		if d.sent != s.sent {
			*d = *s
			continue
		}
		// Sent or not, both carry the same event's actor, resource, value
		// and op (load and send take them from it): copy the rest.
		d.delivered, d.committed, d.deliveredAt, d.committedAt = s.delivered, s.committed, s.deliveredAt, s.committedAt
		d.scope, d.hasToken, d.token = s.scope, s.hasToken, s.token
	}
	for li := range dst.lanes[:c.lanes] {
		d := &dst.lanes[li]
		d.violations, d.touched = d.violations[:0], false
		if !changed[li] {
			continue
		}
		s := &src.lanes[li]
		copy(d.aborted, s.aborted)
		copy(d.pending, s.pending)
		for ri := range d.res {
			dr, sr := &d.res[ri], &s.res[ri]
			for k := range dr.rems {
				dr.rems[k].has, dr.rems[k].t = sr.rems[k].has, sr.rems[k].t
			}
			copy(dr.applied, sr.applied)
			copy(dr.ops, sr.ops)
			if c.pr.keysMemory[ri] {
				copy(dr.keys, sr.keys)
			}
		}
		copy(d.seen, s.seen)
		copy(d.fresh, s.fresh)
	}
	dst.warnings = dst.warnings[:0]
}
