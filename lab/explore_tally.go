package lab

import (
	"encoding/binary"
	mathbig "math/big"
	"math/bits"
)

// violated records what each policy has broken so far, in bitsPerPolicy
// bits a policy: the invariants, with unowned-write split by its class,
// so that the classes reached can be told too.
type violated uint64

// The bits of one policy in violated.
const (
	bitStale = iota
	bitSuperseded
	bitDuplicate
	bitRejected
	bitUnownedDeposed
	bitUnownedOverrun
	bitsPerPolicy
)

// invMask is, per invariant (in the order of Invariants), its bits.
var invMask = [numInvariants]uint64{1 << bitStale, 1 << bitSuperseded, 1 << bitDuplicate, 1 << bitRejected,
	1<<bitUnownedDeposed | 1<<bitUnownedOverrun}

// classMask is, per class (in the order of Classes), the bits of its violations.
var classMask = [numClasses]uint64{1<<bitStale | 1<<bitDuplicate, 1 << bitRejected,
	1<<bitSuperseded | 1<<bitUnownedDeposed, 1 << bitUnownedOverrun}

// bitOf is the bit of a violation.
func bitOf(v Violation) uint {
	switch v.Kind {
	case StaleOverwrite:
		return bitStale
	case SupersededWrite:
		return bitSuperseded
	case DuplicateApplied:
		return bitDuplicate
	case ValidWriteRejected:
		return bitRejected
	}
	if v.Class == Deposed {
		return bitUnownedDeposed
	}
	return bitUnownedOverrun
}

// atLeast is, per class, the bits of that class and of every more severe one.
var atLeast = func() (m [numClasses]uint64) {
	for c := range m {
		for k := 0; k <= c; k++ {
			m[c] |= classMask[k]
		}
	}
	return m
}()

// byPolicy returns the bits of policy p.
func (v violated) byPolicy(p int) uint64 {
	return uint64(v>>(p*bitsPerPolicy)) & (1<<bitsPerPolicy - 1)
}

// The entries of a tally, per policy: one per invariant, then one per
// class counting the orderings that reach that class or a more severe one
// (the last, overrun, is "any violation"). A tally counts orderings that
// reach something, never those whose worst is exactly a class, because
// reaching only grows along an ordering: the entries a state's broken
// invariants imply need not be stored (see implied).
const (
	perPolicy  = numInvariants + numClasses
	numEntries = numPolicies * perPolicy
)

func invEntry(p, k int) int   { return p*perPolicy + k }
func classEntry(p, c int) int { return p*perPolicy + numInvariants + c }
func anyEntry(p int) int      { return classEntry(p, numClasses-1) }

// implied returns the entries of a state's tally that equal its number of
// completions because the invariants broken on the way there decide them.
func (v violated) implied() entryMask {
	var m entryMask
	if v == 0 {
		return m
	}
	for p := range numPolicies {
		b := v.byPolicy(p)
		if b == 0 {
			continue
		}
		e, at := uint64(impliedByPolicy[b]), p*perPolicy
		m[at/64] |= e << (at % 64)
		if at%64+perPolicy > 64 {
			m[at/64+1] |= e >> (64 - at%64)
		}
	}
	return m
}

// impliedByPolicy is, for each set of one policy's bits, the entries of
// that policy (bit i: entry p*perPolicy+i) they imply.
var impliedByPolicy = func() (t [1 << bitsPerPolicy]uint16) {
	for b := range t {
		for k, bits := range invMask {
			if uint64(b)&bits != 0 {
				t[b] |= 1 << k
			}
		}
		for c, bits := range atLeast {
			if uint64(b)&bits != 0 {
				t[b] |= 1 << (numInvariants + c)
			}
		}
	}
	return t
}()

// number is a count of orderings: a uint64 until it overflows, then a big.Int.
type number struct {
	lo  uint64
	big *mathbig.Int
}

func (c *number) add(o *number) {
	if c.big == nil && o.big == nil {
		sum, carry := bits.Add64(c.lo, o.lo, 0)
		if carry == 0 {
			c.lo = sum
			return
		}
	}
	if c.big == nil {
		c.big = new(mathbig.Int).SetUint64(c.lo)
	}
	c.big.Add(c.big, o.bigInt())
}

func (c *number) isZero() bool { return c.big == nil && c.lo == 0 }

func (c *number) bigInt() *mathbig.Int {
	if c.big != nil {
		return new(mathbig.Int).Set(c.big)
	}
	return new(mathbig.Int).SetUint64(c.lo)
}

// tally counts the completions of a state, the orderings of the events not
// yet run: all of them, and per policy those that break each invariant and
// reach each class (at any step, before or after the state).
type tally struct {
	all number
	v   [numEntries]number
	nz  entryMask // the entries of v that may be other than zero
}

// addChild adds the completions through a child state, reached by a step
// after which the invariants in cv are broken.
func (t *tally) addChild(c *tally, cv violated) {
	t.all.add(&c.all)
	implied := cv.implied()
	for w := range implied {
		t.nz[w] |= implied[w] | c.nz[w]
		for m := implied[w] | c.nz[w]; m != 0; m &= m - 1 {
			i := w*64 + bits.TrailingZeros64(m)
			if implied[w]&(1<<(i%64)) != 0 {
				t.v[i].add(&c.all)
			} else {
				t.v[i].add(&c.v[i])
			}
		}
	}
}

// entryMask has a bit per entry of a tally.
type entryMask [(numEntries + 63) / 64]uint64

func (m *entryMask) set(i int)      { m[i/64] |= 1 << (i % 64) }
func (m *entryMask) has(i int) bool { return m[i/64]&(1<<(i%64)) != 0 }

// appendTally stores a state's tally, leaving out the entries its broken
// invariants imply and the zeros.
func appendTally(buf []byte, t *tally, v violated) []byte {
	var mask entryMask
	implied := v.implied()
	for w := range mask {
		for m := t.nz[w] &^ implied[w]; m != 0; m &= m - 1 {
			if i := w*64 + bits.TrailingZeros64(m); !t.v[i].isZero() {
				mask.set(i)
			}
		}
	}
	for _, w := range mask {
		buf = binary.AppendUvarint(buf, w)
	}
	buf = appendNumber(buf, &t.all)
	for i := range t.v {
		if mask.has(i) {
			buf = appendNumber(buf, &t.v[i])
		}
	}
	return buf
}

// readTally reads a tally stored by appendTally; implied entries read as zero.
func readTally(b []byte, t *tally) {
	*t = tally{}
	rd := reader{b: b}
	var mask entryMask
	for w := range mask {
		mask[w] = rd.uvarint()
	}
	t.all = rd.number()
	t.nz = mask
	for i := range t.v {
		if mask.has(i) {
			t.v[i] = rd.number()
		}
	}
}

// appendNumber stores a number as a uvarint of twice its value, or, once it
// outgrew 63 bits, of twice its length in bytes plus one, then the bytes.
func appendNumber(buf []byte, c *number) []byte {
	if c.big == nil && c.lo < 1<<63 {
		return binary.AppendUvarint(buf, c.lo<<1)
	}
	b := c.bigInt().Bytes()
	buf = binary.AppendUvarint(buf, uint64(len(b))<<1|1)
	return append(buf, b...)
}

func (rd *reader) number() number {
	n := rd.uvarint()
	if n&1 == 0 {
		return number{lo: n >> 1}
	}
	b := rd.bytes(int(n >> 1))
	return number{big: new(mathbig.Int).SetBytes(b)}
}
