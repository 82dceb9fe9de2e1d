package views

import (
	"cmp"
	"encoding/binary"
	"io"
	"math/bits"
	"slices"
)

// runDeflater compresses the PNG's filtered rows as a deflate stream
// (RFC 1951) the way zlib's Z_RLE strategy, which libpng suggests for
// pictures like these, does: it looks for a match only one byte back (a
// byte repeated, mostly the zeros the "up" filter leaves) and, beyond
// Z_RLE, three bytes back (a whole pixel repeated), instead of hashing
// every position in a 32 KiB window as compress/flate does. On the
// diagram that packs as small as compress/flate's fastest level, in a
// fraction of the time. Each block gets Huffman codes made for it.
type runDeflater struct {
	w      io.Writer
	err    error
	tokens []uint32 // a literal byte, or length<<16 | distance
	lit    [286]int32
	dist   [30]int32
	out    []byte
	acc    uint64 // bits not yet in out, the first in the lowest bit
	nacc   uint
}

const (
	minMatch    = 3
	maxMatch    = 258
	blockTokens = 1 << 15
	endOfBlock  = 256
)

func (z *runDeflater) reset(w io.Writer) {
	z.w, z.err = w, nil
	z.tokens, z.out = z.tokens[:0], z.out[:0]
	z.lit, z.dist = [286]int32{}, [30]int32{}
	z.acc, z.nacc = 0, 0
}

// row adds p to the stream. Matches stay within p: a PNG row starts with
// its filter byte, which ends any run of the row before.
func (z *runDeflater) row(p []byte) {
	for i := 0; i < len(p); {
		n, d := 0, 0
		switch {
		case i >= 1 && p[i] == 0 && p[i-1] == 0:
			n, d = zeros(p[i:]), 1
		case i >= 1 && p[i] == p[i-1]:
			n, d = repeats(p, i, 1), 1
		}
		if n < maxMatch && i >= 3 && p[i] == p[i-3] {
			if m := repeats(p, i, 3); m > n {
				n, d = m, 3
			}
		}
		if n >= minMatch {
			z.match(n, d)
			i += n
		} else {
			z.literal(p[i])
			i++
		}
	}
}

// repeats is how many bytes from p[i] on, up to maxMatch, equal those d
// bytes before them; eight are compared at a time.
func repeats(p []byte, i, d int) int {
	n, end := 0, min(len(p)-i, maxMatch)
	for n+8 <= end {
		if x := binary.LittleEndian.Uint64(p[i+n:]) ^ binary.LittleEndian.Uint64(p[i+n-d:]); x != 0 {
			return n + bits.TrailingZeros64(x)/8
		}
		n += 8
	}
	for n < end && p[i+n] == p[i+n-d] {
		n++
	}
	return n
}

// zeros is how many bytes p starts with are zero, up to maxMatch.
func zeros(p []byte) int {
	n, end := 0, min(len(p), maxMatch)
	for n+8 <= end {
		if x := binary.LittleEndian.Uint64(p[n:]); x != 0 {
			return n + bits.TrailingZeros64(x)/8
		}
		n += 8
	}
	for n < end && p[n] == 0 {
		n++
	}
	return n
}

// zeroRow adds a row of the filter byte f and n zeros: what the row
// function would find in it, without looking.
func (z *runDeflater) zeroRow(f byte, n int) {
	z.literal(f)
	if n > 0 {
		z.literal(0)
		n--
	}
	for ; n >= minMatch; n -= min(n, maxMatch) {
		z.match(min(n, maxMatch), 1)
	}
	for ; n > 0; n-- {
		z.literal(0)
	}
}

func (z *runDeflater) literal(b byte) {
	z.tokens = append(z.tokens, uint32(b))
	z.lit[b]++
	if len(z.tokens) >= blockTokens {
		z.block(false)
	}
}

func (z *runDeflater) match(n, d int) {
	z.tokens = append(z.tokens, uint32(n)<<16|uint32(d))
	z.lit[257+int(lengthCode[n])]++
	z.dist[d-1]++
	if len(z.tokens) >= blockTokens {
		z.block(false)
	}
}

// close ends the stream with a last block and writes out what is left.
func (z *runDeflater) close() error {
	z.block(true)
	for z.nacc > 0 {
		z.out = append(z.out, byte(z.acc))
		z.acc >>= 8
		z.nacc = max(z.nacc, 8) - 8
	}
	z.flush()
	return z.err
}

func (z *runDeflater) flush() {
	if z.err == nil && len(z.out) > 0 {
		_, z.err = z.w.Write(z.out)
	}
	z.out = z.out[:0]
}

// put adds the n low bits of v to the stream.
func (z *runDeflater) put(v uint32, n uint8) {
	z.acc |= uint64(v) << z.nacc
	z.nacc += uint(n)
	if z.nacc >= 32 {
		z.out = binary.LittleEndian.AppendUint32(z.out, uint32(z.acc))
		z.acc >>= 32
		z.nacc -= 32
	}
}

// codeOrder is the order in which a block's header gives the lengths of
// the code-length code.
var codeOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// block writes the tokens gathered as one block with dynamic Huffman
// codes (RFC 1951 3.2.7).
func (z *runDeflater) block(final bool) {
	z.lit[endOfBlock]++
	var litLen [286]uint8
	var distLen [30]uint8
	var litCode [286]uint16
	var distCode [30]uint16
	codeLengths(z.lit[:], 15, litLen[:])
	codeLengths(z.dist[:], 15, distLen[:])
	canonical(litLen[:], litCode[:])
	canonical(distLen[:], distCode[:])
	hlit, hdist := len(litLen), len(distLen)
	for hlit > 257 && litLen[hlit-1] == 0 {
		hlit--
	}
	for hdist > 1 && distLen[hdist-1] == 0 {
		hdist--
	}

	// The code lengths, run-length coded with 16 (repeat the last 3-6
	// times), 17 (3-10 zeros) and 18 (11-138 zeros), in a code of their own.
	seq := append(litLen[:hlit:hlit], distLen[:hdist]...)
	var cl []uint16 // symbol | extra bits' value << 8
	var clFreq [19]int32
	emit := func(sym, extra int) {
		cl = append(cl, uint16(sym|extra<<8))
		clFreq[sym]++
	}
	for i := 0; i < len(seq); {
		l, n := seq[i], 1
		for i+n < len(seq) && seq[i+n] == l {
			n++
		}
		i += n
		if l == 0 {
			for ; n >= 11; n -= min(n, 138) {
				emit(18, min(n, 138)-11)
			}
			if n >= 3 {
				emit(17, n-3)
				n = 0
			}
		} else {
			emit(int(l), 0)
			for n--; n >= 3; n -= min(n, 6) {
				emit(16, min(n, 6)-3)
			}
		}
		for ; n > 0; n-- {
			emit(int(l), 0)
		}
	}
	var clLen [19]uint8
	var clCode [19]uint16
	codeLengths(clFreq[:], 7, clLen[:])
	canonical(clLen[:], clCode[:])
	hclen := len(codeOrder)
	for hclen > 4 && clLen[codeOrder[hclen-1]] == 0 {
		hclen--
	}

	last := uint32(0)
	if final {
		last = 1
	}
	z.put(last, 1)
	z.put(2, 2) // dynamic Huffman codes
	z.put(uint32(hlit-257), 5)
	z.put(uint32(hdist-1), 5)
	z.put(uint32(hclen-4), 4)
	for _, s := range codeOrder[:hclen] {
		z.put(uint32(clLen[s]), 3)
	}
	extraBits := [19]uint8{16: 2, 17: 3, 18: 7}
	for _, c := range cl {
		s := c & 0xff
		z.put(uint32(clCode[s]), clLen[s])
		if e := extraBits[s]; e > 0 {
			z.put(uint32(c>>8), e)
		}
	}

	for i, t := range z.tokens {
		if i%4096 == 0 && len(z.out) >= 32<<10 {
			z.flush()
		}
		if t < 1<<16 {
			z.put(uint32(litCode[t]), litLen[t])
			continue
		}
		n, d := t>>16, t&0xffff
		c := lengthCode[n]
		z.put(uint32(litCode[257+int(c)]), litLen[257+int(c)])
		if e := lengthExtra[c]; e > 0 {
			z.put(n-uint32(lengthBase[c]), e)
		}
		z.put(uint32(distCode[d-1]), distLen[d-1]) // distances 1 to 4 have no extra bits
	}
	z.put(uint32(litCode[endOfBlock]), litLen[endOfBlock])
	z.tokens = z.tokens[:0]
	z.lit, z.dist = [286]int32{}, [30]int32{}
}

// The lengths a match's length code stands for: code i (symbol 257+i)
// covers lengthBase[i] and the lengthExtra[i] bits that follow.
var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	lengthCode  = func() (c [maxMatch + 1]uint8) {
		for i := range 28 {
			for n := lengthBase[i]; n < lengthBase[i+1]; n++ {
				c[n] = uint8(i)
			}
		}
		c[maxMatch] = 28 // 258 has a code of its own, not 227 + 31
		return c
	}()
)

// codeLengths sets lens to the lengths of a Huffman code for symbols
// of the given frequencies, none longer than limit. A code needs two
// symbols to be complete (which inflaters check), so it gives the first
// unused symbols a count of one while fewer than two are used. When the
// tree is too deep it flattens the counts and builds it again.
func codeLengths(freq []int32, limit uint8, lens []uint8) {
	for s, used := 0, nonzero(freq); used < 2; s++ {
		if freq[s] == 0 {
			freq[s], used = 1, used+1
		}
	}
	syms := make([]int, 0, len(freq))
	for s, f := range freq {
		if f > 0 {
			syms = append(syms, s)
		}
	}
	weight := make([]int64, 2*len(syms)-1)
	parent := make([]int32, len(weight))
	depth := make([]uint8, len(weight))
	for shift := uint(0); ; shift++ {
		slices.SortFunc(syms, func(a, b int) int {
			return cmp.Or(cmp.Compare(freq[a]>>shift|1, freq[b]>>shift|1), cmp.Compare(a, b))
		})
		n := len(syms)
		for i, s := range syms {
			weight[i] = int64(freq[s]>>shift | 1)
		}
		// Two queues, both in ascending order: the leaves, and the
		// inner nodes as they are made.
		leaf, inner := 0, n
		take := func(made int) int {
			if leaf < n && (inner >= made || weight[leaf] <= weight[inner]) {
				leaf++
				return leaf - 1
			}
			inner++
			return inner - 1
		}
		for k := n; k < 2*n-1; k++ {
			a, b := take(k), take(k)
			weight[k] = weight[a] + weight[b]
			parent[a], parent[b] = int32(k), int32(k)
		}
		deepest := uint8(0)
		depth[2*n-2] = 0
		for k := 2*n - 3; k >= 0; k-- {
			depth[k] = depth[parent[k]] + 1
			deepest = max(deepest, depth[k])
		}
		if deepest <= limit {
			clear(lens)
			for i, s := range syms {
				lens[s] = depth[i]
			}
			return
		}
	}
}

func nonzero(freq []int32) int {
	n := 0
	for _, f := range freq {
		if f > 0 {
			n++
		}
	}
	return n
}

// canonical gives each symbol its code from the lengths alone (RFC 1951
// 3.2.2), its bits reversed: deflate packs a code from its first bit on
// into the lowest free bit.
func canonical(lens []uint8, codes []uint16) {
	var count, next [16]uint16
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	code := uint16(0)
	for b := 1; b < 16; b++ {
		code = (code + count[b-1]) << 1
		next[b] = code
	}
	for s, l := range lens {
		if l > 0 {
			codes[s] = bits.Reverse16(next[l]) >> (16 - l)
			next[l]++
		}
	}
}
