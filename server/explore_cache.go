package server

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"fencelab/lab"
)

// exploreCache keeps the latest explorations by scenario, least recently
// used out first. It keeps only what a second run would give again: a
// complete exploration, under the scenario's key, and one the state budget
// stopped (the engine is deterministic), under the key and that budget.
// One stopped by the deadline or a cancel is not kept. The explorations
// are shared between requests and never modified.
type exploreCache struct {
	mu    sync.Mutex
	size  int
	order *list.List // of *cacheEntry, most recently used first
	byKey map[string]*list.Element
}

type cacheEntry struct {
	key string
	x   *lab.Exploration
}

func newExploreCache(size int) *exploreCache {
	return &exploreCache{size: size, order: list.New(), byKey: map[string]*list.Element{}}
}

// exploreKey is the SHA-256 of the scenario's canonical JSON and the
// engine version: another engine may count otherwise.
func exploreKey(sc *lab.Scenario) (string, error) {
	canonical, err := json.Marshal(sc)
	if err != nil {
		return "", fmt.Errorf("encode scenario: %w", err)
	}
	h := sha256.New()
	h.Write(canonical)
	h.Write([]byte{0})
	h.Write([]byte(lab.Version))
	return hex.EncodeToString(h.Sum(nil)), nil
}

func budgetKey(key string, budget int) string { return key + "@" + strconv.Itoa(budget) }

// get returns what an exploration of the scenario key within budget would
// give: a complete one that needed no more states, or one stopped at this
// very budget.
func (c *exploreCache) get(key string, budget int) (*lab.Exploration, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if x, ok := c.lookup(key); ok && x.States <= budget {
		return x, true
	}
	return c.lookup(budgetKey(key, budget))
}

func (c *exploreCache) lookup(key string) (*lab.Exploration, bool) {
	el, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cacheEntry).x, true
}

// put keeps x when a second run would give it again.
func (c *exploreCache) put(key string, budget int, x *lab.Exploration) {
	switch {
	case x.Complete:
	case x.Stopped == lab.StopBudget:
		key = budgetKey(key, budget)
	default:
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		el.Value.(*cacheEntry).x = x
		c.order.MoveToFront(el)
		return
	}
	c.byKey[key] = c.order.PushFront(&cacheEntry{key: key, x: x})
	for c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*cacheEntry).key)
	}
}
