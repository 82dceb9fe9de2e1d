package server

import (
	"container/list"
	"sync"
)

// lru keeps values by key within a total cost, the least recently used
// going first. The rendered pages count their bytes, the explorations one
// each. It is safe for concurrent use.
type lru[V any] struct {
	mu    sync.Mutex
	max   int
	size  int
	order *list.List               // of *lruEntry[V], most recently used first
	byKey map[string]*list.Element // into order
}

type lruEntry[V any] struct {
	key  string
	v    V
	cost int
}

func newLRU[V any](max int) *lru[V] {
	return &lru[V]{max: max, order: list.New(), byKey: map[string]*list.Element{}}
}

// get returns the value kept under key and marks it the most recently used.
func (c *lru[V]) get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.use(c.byKey[key])
}

// getBytes is get of a key held in bytes, which it does not copy.
func (c *lru[V]) getBytes(key []byte) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.use(c.byKey[string(key)])
}

func (c *lru[V]) use(el *list.Element) (V, bool) {
	if el == nil {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*lruEntry[V]).v, true
}

// put keeps v under key at the given cost, in place of what was kept
// there, and lets the least recently used go until the total is within
// the bound again.
func (c *lru[V]) put(key string, v V, cost int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		e := el.Value.(*lruEntry[V])
		c.size += cost - e.cost
		e.v, e.cost = v, cost
		c.order.MoveToFront(el)
	} else {
		c.byKey[key] = c.order.PushFront(&lruEntry[V]{key: key, v: v, cost: cost})
		c.size += cost
	}
	for c.size > c.max {
		last := c.order.Back()
		e := last.Value.(*lruEntry[V])
		c.order.Remove(last)
		delete(c.byKey, e.key)
		c.size -= e.cost
	}
}
