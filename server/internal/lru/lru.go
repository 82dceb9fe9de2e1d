// Package lru keeps values by key within a total cost, the least recently
// used going first: the server's one cache, for rendered pages (costed in
// bytes), explorations and the saved runs' drift (one each).
package lru

import (
	"container/list"
	"sync"
)

// Cache keeps values by key within a total cost. It is safe for
// concurrent use.
type Cache[V any] struct {
	mu    sync.Mutex
	max   int
	size  int
	order *list.List               // of *entry[V], most recently used first
	byKey map[string]*list.Element // into order
}

type entry[V any] struct {
	key  string
	v    V
	cost int
}

// New is an empty cache that keeps values up to a total cost of max.
func New[V any](max int) *Cache[V] {
	return &Cache[V]{max: max, order: list.New(), byKey: map[string]*list.Element{}}
}

// Get returns the value kept under key and marks it the most recently used.
func (c *Cache[V]) Get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.use(c.byKey[key])
}

// GetBytes is Get of a key held in bytes, which it does not copy: the
// page cache looks up request paths without allocating.
func (c *Cache[V]) GetBytes(key []byte) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.use(c.byKey[string(key)])
}

func (c *Cache[V]) use(el *list.Element) (V, bool) {
	if el == nil {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*entry[V]).v, true
}

// Put keeps v under key at the given cost, in place of what was kept
// there, and lets the least recently used go until the total is within
// the bound again.
func (c *Cache[V]) Put(key string, v V, cost int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		e := el.Value.(*entry[V])
		c.size += cost - e.cost
		e.v, e.cost = v, cost
		c.order.MoveToFront(el)
	} else {
		c.byKey[key] = c.order.PushFront(&entry[V]{key: key, v: v, cost: cost})
		c.size += cost
	}
	for c.size > c.max {
		last := c.order.Back()
		e := last.Value.(*entry[V])
		c.order.Remove(last)
		delete(c.byKey, e.key)
		c.size -= e.cost
	}
}

// Len is the number of values kept.
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byKey)
}

// Cost is the total cost of the values kept, never over the bound.
func (c *Cache[V]) Cost() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}
