package lab

import (
	mathbig "math/big"
	"math/bits"
)

// violated records what each lane has broken so far, in bitsPerPolicy
// bits a lane: the invariants, with unowned-write split by its class,
// so that the classes reached can be told too. A lane decides for every
// policy of its group (laneGroups).
type violated uint64

// The bits of one lane in violated.
const (
	bitStale = iota
	bitSuperseded
	bitDuplicate
	bitRejected
	bitUnownedDeposed
	bitUnownedOverrun
	bitLost
	bitsPerPolicy
)

// invMask is, per invariant (in the order of Invariants), its bits.
var invMask = [numInvariants]uint64{1 << bitStale, 1 << bitSuperseded, 1 << bitDuplicate, 1 << bitRejected,
	1<<bitUnownedDeposed | 1<<bitUnownedOverrun, 1 << bitLost}

// classMask is, per class (in the order of Classes), the bits of its violations.
var classMask = [numClasses]uint64{1<<bitStale | 1<<bitDuplicate | 1<<bitLost, 1 << bitRejected,
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
	case LostUpdate:
		return bitLost
	}
	if v.Class == Deposed {
		return bitUnownedDeposed
	}
	return bitUnownedOverrun
}

// byLane returns the bits of lane li.
func (v violated) byLane(li int) uint64 {
	return uint64(v>>(li*bitsPerPolicy)) & (1<<bitsPerPolicy - 1)
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

func (c *number) bigInt() *mathbig.Int {
	if c.big != nil {
		return new(mathbig.Int).Set(c.big)
	}
	return new(mathbig.Int).SetUint64(c.lo)
}
