package lab

import (
	"encoding/binary"
	mathbig "math/big"
	"math/bits"
)

// numInvariants is len(Invariants).
const numInvariants = 5

// violated records which invariants each policy has broken so far: bit
// p*numInvariants+k for policy Policies[p] and invariant Invariants[k].
type violated uint64

// byPolicy returns the invariants policy p has broken, as bits k.
func (v violated) byPolicy(p int) uint64 {
	return uint64(v>>(p*numInvariants)) & (1<<numInvariants - 1)
}

// The entries of a tally: per policy and invariant, then per policy "any".
const (
	anyBase    = numPolicies * numInvariants
	numEntries = anyBase + numPolicies
)

func invEntry(p, k int) int { return p*numInvariants + k }
func anyEntry(p int) int    { return anyBase + p }

// implied reports whether entry i of a state's tally equals its number of
// completions because the invariants broken on the way there decide it.
func (v violated) implied(i int) bool {
	if i < anyBase {
		return v&(1<<i) != 0
	}
	return v.byPolicy(i-anyBase) != 0
}

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
// yet run: all of them, and per policy those in which the policy breaks
// each invariant (at any step, before or after the state) or any.
type tally struct {
	all number
	v   [numEntries]number
}

// addChild adds the completions through a child state, reached by a step
// after which the invariants in cv are broken.
func (t *tally) addChild(c *tally, cv violated) {
	t.all.add(&c.all)
	for i := range t.v {
		if cv.implied(i) {
			t.v[i].add(&c.all)
		} else if !c.v[i].isZero() {
			t.v[i].add(&c.v[i])
		}
	}
}

// appendTally stores a state's tally, leaving out the entries its broken
// invariants imply and the zeros.
func appendTally(buf []byte, t *tally, v violated) []byte {
	var mask uint64
	for i := range t.v {
		if !v.implied(i) && !t.v[i].isZero() {
			mask |= 1 << i
		}
	}
	buf = binary.AppendUvarint(buf, mask)
	buf = appendNumber(buf, &t.all)
	for i := range t.v {
		if mask&(1<<i) != 0 {
			buf = appendNumber(buf, &t.v[i])
		}
	}
	return buf
}

// readTally reads a tally stored by appendTally; implied entries read as zero.
func readTally(b []byte, t *tally) {
	*t = tally{}
	rd := reader{b: b}
	mask := rd.uvarint()
	t.all = rd.number()
	for i := range t.v {
		if mask&(1<<i) != 0 {
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
