package server

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	"fencelab/lab"
	"fencelab/server/internal/lru"
)

// exploreCache keeps the latest explorations by scenario, least recently
// used out first. It keeps only what a second run would give again: a
// complete exploration, under the scenario's key, and one the state budget
// stopped (the engine is deterministic), under the key and that budget.
// One stopped by the deadline or a cancel is not kept. The explorations
// are shared between requests and never modified.
type exploreCache struct {
	kept *lru.Cache[*lab.Exploration] // one unit of cost an exploration
}

func newExploreCache(size int) *exploreCache {
	return &exploreCache{kept: lru.New[*lab.Exploration](size)}
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
	if x, ok := c.kept.Get(key); ok && x.States <= budget {
		return x, true
	}
	return c.kept.Get(budgetKey(key, budget))
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
	c.kept.Put(key, x, 1)
}
