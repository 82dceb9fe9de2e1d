package lab

import (
	"encoding/json"
	"testing"
)

func marshal(v any) ([]byte, error) { return json.Marshal(v) }

// samples is how many random scenarios a property test checks: n in a
// full run, a quarter of them (at least 40) under -short, so that the
// inner loop still tries every property and CI tries it on many more.
func samples(n int) int {
	if testing.Short() {
		return max(40, n/4)
	}
	return n
}
