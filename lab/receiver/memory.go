package receiver

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// Memory is a Store in memory. A restart through the contract keeps what a
// durable receiver would keep: values, and the remembered token and the
// version unless the receiver is forgetful.
type Memory struct {
	opt   Options
	mu    sync.Mutex
	res   map[string]*slot
	floor *int64 // the highest registered token, for resources not yet written
}

type slot struct {
	value             *string
	token, remembered *int64 // the value's token; the highest token it remembers
	version           int64  // the writes applied
	ops               map[string]bool
}

// NewMemory returns an empty in-memory store with the given options.
func NewMemory(opt Options) *Memory {
	return &Memory{opt: opt, res: map[string]*slot{}}
}

// Reset implements Store.
func (m *Memory) Reset(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.res, m.floor = map[string]*slot{}, nil
	return nil
}

func (m *Memory) slot(name string) *slot {
	s := m.res[name]
	if s == nil {
		s = &slot{ops: map[string]bool{}, remembered: m.floor}
		m.res[name] = s
	}
	return s
}

// Write implements Store. The correct receiver holds one lock across the
// decision and the write; the racy one lets go in between.
func (m *Memory) Write(_ context.Context, w Write) (Decision, error) {
	if m.opt.Flaw == Racy {
		return m.racyWrite(w), nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.slot(w.Resource)
	if w.Op != nil && m.opt.Policy.Idempotent() && s.ops[*w.Op] {
		return Decision{Outcome: Suppressed}, nil
	}
	if ok, why := m.admits(s, w); !ok {
		return Decision{Outcome: Rejected, Reason: why}, nil
	}
	m.apply(s, w)
	return Decision{Outcome: Applied}, nil
}

// admits is the policy's check: the version condition under cas, which
// ignores tokens, else the token against the one remembered.
func (m *Memory) admits(s *slot, w Write) (bool, string) {
	if m.opt.Policy.ChecksVersion() {
		return matches(w.ExpectVersion, s.version)
	}
	return admits(m.opt.Policy.Strict(), w.Token, s.remembered)
}

func (m *Memory) apply(s *slot, w Write) {
	v := w.Value
	s.value, s.token, s.remembered = &v, w.Token, w.Token
	s.version++
	if w.Op != nil {
		s.ops[*w.Op] = true
	}
}

// racyWrite reads the remembered token, decides, and only then takes the
// lock again to write: another write can land in between.
func (m *Memory) racyWrite(w Write) Decision {
	m.mu.Lock()
	s := m.slot(w.Resource)
	dup := w.Op != nil && m.opt.Policy.Idempotent() && s.ops[*w.Op]
	ok, why := m.admits(s, w)
	m.mu.Unlock()
	switch {
	case dup:
		return Decision{Outcome: Suppressed}
	case !ok:
		return Decision{Outcome: Rejected, Reason: why}
	}
	if m.opt.Window > 0 {
		time.Sleep(m.opt.Window)
	} else {
		runtime.Gosched()
	}
	m.mu.Lock()
	m.apply(m.slot(w.Resource), w)
	m.mu.Unlock()
	return Decision{Outcome: Applied}
}

// Resource implements Store.
func (m *Memory) Resource(_ context.Context, name string) (Holding, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var v int64
	s := m.res[name]
	if s == nil {
		return Holding{Version: &v}, nil
	}
	v = s.version
	return Holding{Value: s.value, Token: s.token, Version: &v}, nil
}

// Register implements Store.
func (m *Memory) Register(_ context.Context, token int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.floor = maxToken(m.floor, token)
	for _, s := range m.res {
		s.remembered = maxToken(s.remembered, token)
	}
	return nil
}

// Restart implements Store.
func (m *Memory) Restart(_ context.Context, resource string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.res[resource]; s != nil && m.opt.Flaw == Forgetful {
		s.remembered = nil
		if m.opt.Policy.ChecksVersion() {
			s.version = 0 // kept in memory only, like the token
		}
	}
	return nil
}

// Close implements Store.
func (m *Memory) Close() error { return nil }

func maxToken(p *int64, t int64) *int64 {
	if p != nil && *p >= t {
		return p
	}
	return &t
}
