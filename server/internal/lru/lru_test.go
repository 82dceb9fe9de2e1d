package lru_test

import (
	"testing"

	"fencelab/server/internal/lru"
)

// TestLRU: the least recently used goes first once the costs pass the
// bound; a value put again replaces the old one and its cost.
func TestLRU(t *testing.T) {
	t.Parallel()
	c := lru.New[string](10)
	c.Put("a", "A", 4)
	c.Put("b", "B", 4)
	if v, ok := c.Get("a"); !ok || v != "A" {
		t.Fatalf(`Get("a") = %q, %v; want "A", true`, v, ok)
	}
	c.Put("c", "C", 4) // 12 > 10: b, the least recently used, goes
	if _, ok := c.Get("b"); ok {
		t.Errorf(`Get("b") after a third Put found it; want it gone as the least recently used`)
	}
	if v, ok := c.GetBytes([]byte("a")); !ok || v != "A" {
		t.Errorf(`GetBytes("a") = %q, %v; want "A", true`, v, ok)
	}
	c.Put("a", "A2", 1) // replaces: 1 + 4 = 5
	c.Put("d", "D", 5)  // 10: nothing goes
	for key, want := range map[string]string{"a": "A2", "c": "C", "d": "D"} {
		if v, ok := c.Get(key); !ok || v != want {
			t.Errorf("Get(%q) = %q, %v; want %q, true", key, v, ok, want)
		}
	}
	if c.Cost() != 10 || c.Len() != 3 {
		t.Errorf("Cost() = %d, Len() = %d; want 10, 3", c.Cost(), c.Len())
	}
}

// TestLRUBound: values of cost one, many more than the bound, leave
// exactly the bound's worth kept, the most recent ones.
func TestLRUBound(t *testing.T) {
	t.Parallel()
	c := lru.New[int](100)
	for i := range 1000 {
		c.Put(string(rune('a'+i%26))+string(rune('0'+i/26)), i, 1)
	}
	if c.Len() != 100 || c.Cost() != 100 {
		t.Errorf("after 1000 Puts of cost 1: Len() = %d, Cost() = %d; want 100, 100", c.Len(), c.Cost())
	}
	if _, ok := c.Get("a0"); ok {
		t.Errorf(`Get("a0") after 1000 Puts found the first value; want it gone`)
	}
	if v, ok := c.Get(string(rune('a'+999%26)) + string(rune('0'+999/26))); !ok || v != 999 {
		t.Errorf("Get(last key) = %d, %v; want 999, true", v, ok)
	}
}
