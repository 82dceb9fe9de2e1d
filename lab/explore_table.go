package lab

import "encoding/binary"

// stateTable stores each distinct state once: its key when first reached,
// and its tally once every ordering from it has been counted. Keys and
// tallies live in slabs and the index is an open-addressing table of
// integers, so the garbage collector sees a few large pointer-free blocks,
// and a stored state costs its key, its tally and about 20 bytes.
type stateTable struct {
	keys, tallies slab
	keyRef        []uint32
	tallyRef      []uint32
	slots         []uint64 // 0: empty; else hash<<32 | state+1
}

const firstSlots = 1 << 10

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

func (t *stateTable) len() int { return len(t.keyRef) }

// find returns the state whose key is key.
func (t *stateTable) find(key []byte, h uint32) (int, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return 0, false
		}
		id := int(uint32(s)) - 1
		if uint32(s>>32) == h && string(t.keys.get(t.keyRef[id])) == string(key) {
			return id, true
		}
	}
}

// insert stores a key not stored yet. It fails when the slabs are full.
func (t *stateTable) insert(key []byte, h uint32) (int, bool) {
	ref, ok := t.keys.add(key)
	if !ok {
		return 0, false
	}
	id := len(t.keyRef)
	t.keyRef = append(t.keyRef, ref)
	t.tallyRef = append(t.tallyRef, 0)
	if 4*len(t.keyRef) > 3*len(t.slots) {
		t.grow()
	} else {
		t.place(uint64(h)<<32 | uint64(id+1))
	}
	return id, true
}

// place puts a slot into the first free place from its hash.
func (t *stateTable) place(s uint64) {
	mask := uint32(len(t.slots) - 1)
	i := uint32(s>>32) & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = s
}

// grow doubles the slots and places every stored state again.
func (t *stateTable) grow() {
	t.slots = make([]uint64, max(firstSlots, 2*len(t.slots)))
	for id, ref := range t.keyRef {
		t.place(uint64(hashKey(t.keys.get(ref)))<<32 | uint64(id+1))
	}
}

func (t *stateTable) key(id int) []byte { return t.keys.get(t.keyRef[id]) }

func (t *stateTable) setTally(id int, b []byte) bool {
	ref, ok := t.tallies.add(b)
	t.tallyRef[id] = ref
	return ok
}

func (t *stateTable) tally(id int) []byte { return t.tallies.get(t.tallyRef[id]) }

// bytes is the memory the table holds.
func (t *stateTable) bytes() int {
	return t.keys.bytes() + t.tallies.bytes() + 4*cap(t.keyRef) + 4*cap(t.tallyRef) + 8*cap(t.slots)
}

// slab stores byte strings, each behind its uvarint length, in chunks that
// never move: storing more copies nothing already stored. A reference is
// the chunk (12 bits) and the offset in it (20 bits), so a slab holds up
// to 4 GiB.
type slab struct {
	chunks [][]byte
	size   int
}

const (
	chunkBits      = 20
	chunkSize      = 1 << chunkBits
	maxChunks      = 1 << (32 - chunkBits)
	firstChunkBits = 12
)

// add stores b and returns its reference; false when the slab is full.
func (s *slab) add(b []byte) (uint32, bool) {
	need := binary.MaxVarintLen64 + len(b)
	n := len(s.chunks)
	if n == 0 || len(s.chunks[n-1])+need > cap(s.chunks[n-1]) {
		if n == maxChunks {
			return 0, false
		}
		// Chunks double from 4 KiB to 1 MiB, so a small exploration
		// allocates little; a chunk holds at least one string.
		size := chunkSize
		if n < chunkBits-firstChunkBits {
			size = 1 << (firstChunkBits + n)
		}
		size = max(size, need)
		s.chunks = append(s.chunks, make([]byte, 0, size))
		s.size += size
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
