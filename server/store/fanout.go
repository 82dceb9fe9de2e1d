package store

import (
	"context"
	"sync"
)

// Fanout rings a bell for a room on every server that holds some of its
// phones: the room changed, read it again from the store. A bell carries
// no state, so a bell that rings twice before it is heard is heard once,
// and a server that missed one catches up on the next.
//
// MemoryFanout serves one process. When several servers share one
// PostgreSQL database, an implementation rides on its notifications:
// Notify runs `SELECT pg_notify('fencelab_rooms', roomID)` (after the
// change committed); one connection per server runs `LISTEN
// fencelab_rooms` and hands each notification's payload to the local
// subscribers of that room, as MemoryFanout does; after that connection is
// lost and re-established it rings every local room once, since
// notifications sent meanwhile are gone.
type Fanout interface {
	// Notify rings the room's bell on every server.
	Notify(ctx context.Context, roomID string) error
	// Listen returns a channel that receives after each Notify for the
	// room, and a function that stops listening.
	Listen(roomID string) (bell <-chan struct{}, stop func())
}

// MemoryFanout is the Fanout of a single server.
type MemoryFanout struct {
	mu    sync.Mutex
	bells map[string]map[chan struct{}]struct{}
}

// NewMemoryFanout returns an empty MemoryFanout.
func NewMemoryFanout() *MemoryFanout {
	return &MemoryFanout{bells: map[string]map[chan struct{}]struct{}{}}
}

// Notify rings each listener's bell without waiting: a bell already
// ringing stays so.
func (f *MemoryFanout) Notify(_ context.Context, roomID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for bell := range f.bells[roomID] {
		select {
		case bell <- struct{}{}:
		default:
		}
	}
	return nil
}

// Listen registers a bell for the room.
func (f *MemoryFanout) Listen(roomID string) (<-chan struct{}, func()) {
	bell := make(chan struct{}, 1)
	f.mu.Lock()
	if f.bells[roomID] == nil {
		f.bells[roomID] = map[chan struct{}]struct{}{}
	}
	f.bells[roomID][bell] = struct{}{}
	f.mu.Unlock()
	var once sync.Once
	return bell, func() {
		once.Do(func() {
			f.mu.Lock()
			delete(f.bells[roomID], bell)
			if len(f.bells[roomID]) == 0 {
				delete(f.bells, roomID)
			}
			f.mu.Unlock()
		})
	}
}
