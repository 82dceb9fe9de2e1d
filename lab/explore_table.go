package lab

import (
	"encoding/binary"
	mathbig "math/big"
	mathbits "math/bits"
)

// shard holds part of a layer: its states' keys, links and counts, in the
// order they were stored, and while the layer is built an index of them by
// hash. Keys live in a slab and the rest in slices of integers, so the
// garbage collector sees a few large pointer-free blocks.
type shard struct {
	keys  slab
	ref   []uint32             // per state, its key in keys
	link  []uint64             // per state, its least link
	count []uint64             // per state, the orderings that reach it
	big   map[int]*mathbig.Int // the counts that outgrew a uint64
	slots []uint64             // 0: empty; else hash<<32 | state+1
	full  bool                 // a key did not fit in the slab
	ahead uint64               // the sum of the slots read ahead, kept so the reads stay
}

const firstSlots = 1 << 4

// newShard makes a shard sized for about expect states, so that a good
// guess copies nothing as it fills. It reuses the key chunks and arrays of
// spare, a shard of a layer no longer needed, when there is one.
func newShard(expect int, spare *shard) *shard {
	slots := firstSlots
	for 3*slots < 4*expect {
		slots *= 2
	}
	t := &shard{slots: make([]uint64, slots), link: make([]uint64, 0, expect)}
	if spare != nil {
		t.keys, t.ref, t.count = spare.keys, spare.ref[:0], spare.count[:0]
		t.keys.reset()
	}
	if cap(t.ref) < expect {
		t.ref = make([]uint32, 0, expect)
	}
	if cap(t.count) < expect {
		t.count = make([]uint64, 0, expect)
	}
	return t
}

// hashKey mixes a key eight bytes at a time (a multiply-xorshift hash; no
// seed, so runs are repeatable).
func hashKey(b []byte) uint32 {
	h := uint64(len(b)) * 0x9e3779b97f4a7c15
	for ; len(b) >= 8; b = b[8:] {
		h = (h ^ binary.LittleEndian.Uint64(b)) * 0xbf58476d1ce4e5b9
		h ^= h >> 31
	}
	for _, c := range b {
		h = (h ^ uint64(c)) * 0x94d049bb133111eb
	}
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	return uint32(h >> 32)
}

func (t *shard) len() int { return len(t.ref) }

func (t *shard) key(i int) []byte { return t.keys.get(t.ref[i]) }

// merge adds the children c found for this shard: a child met before gets
// its parent's count added, a new one is stored with it. Children come in
// the order of their links, so each is stored by its least link.
func (t *shard) merge(c *candidates, parents *layer) {
	start := uint32(0)
	var ahead uint64
	for j, end := range c.ends {
		// Read the slot a later child will probe, so that the memory
		// fetches overlap: in a large layer nearly every probe misses the
		// cache.
		if k := j + lookAhead; k < len(c.hashes) {
			ahead += t.slots[c.hashes[k]&uint32(len(t.slots)-1)]
		}
		key := c.keys[start:end]
		start = end
		h, link := c.hashes[j], c.links[j]
		var n number
		parents.countOf(linkRank(link), &n)
		if i, ok := t.find(key, h); ok {
			t.add(i, &n)
			continue
		}
		t.insert(key, h, link, &n)
	}
	t.ahead += ahead
}

// lookAhead is how many children ahead merge reads the slot of.
const lookAhead = 8

// find returns the state whose key is key.
func (t *shard) find(key []byte, h uint32) (int, bool) {
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return 0, false
		}
		id := int(uint32(s)) - 1
		if uint32(s>>32) == h && string(t.keys.get(t.ref[id])) == string(key) {
			return id, true
		}
	}
}

// insert stores a state not stored yet.
func (t *shard) insert(key []byte, h uint32, link uint64, n *number) {
	ref, ok := t.keys.add(key)
	if !ok {
		t.full = true
		return
	}
	id := len(t.ref)
	t.ref = append(t.ref, ref)
	t.link = append(t.link, link)
	t.count = append(t.count, n.lo)
	if n.big != nil {
		t.setBig(id, n.big)
	}
	if 4*len(t.ref) > 3*len(t.slots) {
		t.grow()
	}
	t.place(uint64(h)<<32 | uint64(id+1))
}

func (t *shard) add(i int, n *number) {
	var c number
	t.countOf(i, &c)
	c.add(n)
	t.count[i] = c.lo
	if c.big != nil {
		t.setBig(i, c.big)
	}
}

func (t *shard) setBig(i int, b *mathbig.Int) {
	if t.big == nil {
		t.big = map[int]*mathbig.Int{}
	}
	t.big[i] = new(mathbig.Int).Set(b)
}

// countOf sets n to the count of state i.
func (t *shard) countOf(i int, n *number) {
	*n = number{lo: t.count[i]}
	if t.big != nil {
		n.big = t.big[i]
	}
}

// place puts a slot into the first free place from its hash.
func (t *shard) place(s uint64) {
	mask := uint32(len(t.slots) - 1)
	i := uint32(s>>32) & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = s
}

// grow doubles the slots and places every stored state again.
func (t *shard) grow() {
	old := t.slots
	t.slots = make([]uint64, 2*len(old))
	for _, s := range old {
		if s != 0 {
			t.place(s)
		}
	}
}

// bytes is the memory the shard holds.
func (t *shard) bytes() int {
	return t.keys.bytes() + 4*cap(t.ref) + 8*cap(t.link) + 8*cap(t.count) + 8*cap(t.slots)
}

// layer is the states after the same number of events, in rank order.
type layer struct {
	shards []*shard
	order  []uint32 // per rank: the state's index in its shard<<bits | its shard
	bits   uint     // enough bits for the number of shards
	links  links    // per rank: the state's link
}

// links are a layer's links by rank, in five bytes a state (six past 256
// events): all that is kept of a layer once the next one is built.
type links struct {
	rank  []uint32
	ev8   []uint8  // the event, when there are at most 256
	ev16  []uint16 // the event, when there are more
	wider bool
}

func newLinks(n, events int) links {
	l := links{rank: make([]uint32, 0, n), wider: events > 256}
	if l.wider {
		l.ev16 = make([]uint16, 0, n)
	} else {
		l.ev8 = make([]uint8, 0, n)
	}
	return l
}

func (l *links) add(link uint64) {
	l.rank = append(l.rank, uint32(linkRank(link)))
	if l.wider {
		l.ev16 = append(l.ev16, uint16(linkEvent(link)))
	} else {
		l.ev8 = append(l.ev8, uint8(linkEvent(link)))
	}
}

func (l *links) at(r int) uint64 {
	if l.wider {
		return linkOf(int(l.rank[r]), int(l.ev16[r]))
	}
	return linkOf(int(l.rank[r]), int(l.ev8[r]))
}

// truncate keeps the first n links.
func (l *links) truncate(n int) {
	l.rank = l.rank[:n]
	if l.wider {
		l.ev16 = l.ev16[:n]
	} else {
		l.ev8 = l.ev8[:n]
	}
}

func (l *links) bytes() int { return 4*cap(l.rank) + cap(l.ev8) + 2*cap(l.ev16) }

// newLayer merges the shards' states by their links: their ranks. The
// shards' indexes and links are dropped; the layer keeps the links by rank.
func newLayer(shards []*shard, events int) *layer {
	total := 0
	for _, sh := range shards {
		total += sh.len()
	}
	l := &layer{shards: shards, order: make([]uint32, 0, total), links: newLinks(total, events),
		bits: uint(mathbits.Len(uint(len(shards) - 1)))}
	next := make([]int, len(shards))
	for range total {
		best := -1
		for s, sh := range shards {
			if next[s] < sh.len() && (best < 0 || sh.link[next[s]] < shards[best].link[next[best]]) {
				best = s
			}
		}
		i := next[best]
		next[best]++
		l.order = append(l.order, uint32(i<<l.bits|best))
		l.links.add(shards[best].link[i])
	}
	for _, sh := range shards {
		sh.link, sh.slots = nil, nil
	}
	return l
}

func (l *layer) len() int { return len(l.order) }

// at is the shard and index of the state of rank r.
func (l *layer) at(r int) (*shard, int) {
	o := l.order[r]
	return l.shards[o&(1<<l.bits-1)], int(o >> l.bits)
}

func (l *layer) key(r int) []byte {
	sh, i := l.at(r)
	return sh.key(i)
}

func (l *layer) countOf(r int, n *number) {
	sh, i := l.at(r)
	sh.countOf(i, n)
}

// bytes is the memory the layer holds, its links aside.
func (l *layer) bytes() int {
	n := 4 * cap(l.order)
	for _, sh := range l.shards {
		n += sh.bytes()
	}
	return n
}

// slab stores byte strings, each behind its uvarint length, in chunks that
// never move: storing more copies nothing already stored. A reference is
// the chunk (12 bits) and the offset in it (20 bits), so a slab holds up
// to 4 GiB.
type slab struct {
	chunks [][]byte // chunks[:used] hold strings; those after, kept from before a reset, are empty
	used   int
	size   int // the bytes of all chunks
}

// reset empties the slab, keeping its chunks to fill again.
func (s *slab) reset() { s.used = 0 }

const (
	chunkBits      = 20
	chunkSize      = 1 << chunkBits
	maxChunks      = 1 << (32 - chunkBits)
	firstChunkBits = 8
)

// add stores b and returns its reference; false when the slab is full.
func (s *slab) add(b []byte) (uint32, bool) {
	need := binary.MaxVarintLen64 + len(b)
	n := s.used
	if n == 0 || len(s.chunks[n-1])+need > cap(s.chunks[n-1]) {
		if n == maxChunks {
			return 0, false
		}
		// Chunks double from 256 B to 1 MiB, so a small exploration
		// allocates little; a chunk holds at least one string.
		size := chunkSize
		if n < chunkBits-firstChunkBits {
			size = 1 << (firstChunkBits + n)
		}
		size = max(size, need)
		switch {
		case n < len(s.chunks) && cap(s.chunks[n]) >= size:
			s.chunks[n] = s.chunks[n][:0]
		case n < len(s.chunks):
			s.size += size - cap(s.chunks[n])
			s.chunks[n] = make([]byte, 0, size)
		default:
			s.chunks = append(s.chunks, make([]byte, 0, size))
			s.size += size
		}
		s.used++
		n++
	}
	c := s.chunks[n-1]
	ref := uint32(n-1)<<chunkBits | uint32(len(c))
	c = binary.AppendUvarint(c, uint64(len(b)))
	s.chunks[n-1] = append(c, b...)
	return ref, true
}

func (s *slab) get(ref uint32) []byte {
	c := s.chunks[ref>>chunkBits]
	off := int(ref & (chunkSize - 1))
	n, k := binary.Uvarint(c[off:])
	return c[off+k : off+k+int(n)]
}

func (s *slab) bytes() int { return s.size }
