package lab

import (
	"encoding/binary"
	"math"
	"testing"
)

// TestVarint checks the codec's varints against encoding/binary's on both
// sides of the one-byte case, and at the ends of int64.
func TestVarint(t *testing.T) {
	t.Parallel()
	values := []int64{math.MinInt64, math.MaxInt64, 1 << 40, -1 << 40}
	for v := int64(-300); v <= 300; v++ {
		values = append(values, v)
	}
	for _, v := range values {
		got, want := appendVarint([]byte{7}, v), binary.AppendVarint([]byte{7}, v)
		if string(got) != string(want) {
			t.Fatalf("appendVarint(%d) = %x, want %x", v, got, want)
		}
		rd := reader{b: append(got, 9), i: 1}
		if back := rd.varint(); back != v || rd.i != len(got) {
			t.Fatalf("reader.varint(%x) = %d ending at %d, want %d ending at %d", got, back, rd.i, v, len(got))
		}
	}
}
