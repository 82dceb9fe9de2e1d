package server

import "testing"

// TestLRU: the least recently used goes first once the costs pass the
// bound; a value put again replaces the old one and its cost.
func TestLRU(t *testing.T) {
	t.Parallel()
	c := newLRU[string](10)
	c.put("a", "A", 4)
	c.put("b", "B", 4)
	if v, ok := c.get("a"); !ok || v != "A" {
		t.Fatalf(`get("a") = %q, %v; want "A", true`, v, ok)
	}
	c.put("c", "C", 4) // 12 > 10: b, the least recently used, goes
	if _, ok := c.get("b"); ok {
		t.Errorf(`get("b") after a third put found it; want it gone as the least recently used`)
	}
	if v, ok := c.getBytes([]byte("a")); !ok || v != "A" {
		t.Errorf(`getBytes("a") = %q, %v; want "A", true`, v, ok)
	}
	c.put("a", "A2", 1) // replaces: 1 + 4 = 5
	c.put("d", "D", 5)  // 10: nothing goes
	for key, want := range map[string]string{"a": "A2", "c": "C", "d": "D"} {
		if v, ok := c.get(key); !ok || v != want {
			t.Errorf("get(%q) = %q, %v; want %q, true", key, v, ok, want)
		}
	}
	if c.size != 10 || c.order.Len() != 3 || len(c.byKey) != 3 {
		t.Errorf("size %d, %d in order, %d by key; want 10, 3, 3", c.size, c.order.Len(), len(c.byKey))
	}
}
