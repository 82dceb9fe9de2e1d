package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"fencelab/server/store"
)

// roomChannel is the channel of PostgreSQL notifications that carry a
// room's id to every server on the database.
const roomChannel = "fencelab_rooms"

// Fanout rings a live room's bell on every server that shares the
// database: Notify sends the room id with pg_notify, and each server keeps
// one connection listening on roomChannel that rings its own listeners.
// Notifications sent while that connection is down are lost, so after it
// is back every room with listeners here rings once: a bell carries no
// state, and a listener that hears one reads the room again.
type Fanout struct {
	db    *DB
	log   *slog.Logger
	local *store.MemoryFanout

	mu    sync.Mutex
	rooms map[string]int // listeners per room on this server

	stop context.CancelFunc
	done chan struct{}
}

// NewFanout starts listening for the rooms' notifications until Close.
func NewFanout(db *DB, log *slog.Logger) *Fanout {
	ctx, stop := context.WithCancel(context.Background())
	f := &Fanout{db: db, log: log, local: store.NewMemoryFanout(), rooms: map[string]int{},
		stop: stop, done: make(chan struct{})}
	ready := make(chan struct{})
	go f.listen(ctx, ready)
	select { // the first LISTEN, so that a Notify right after is heard
	case <-ready:
	case <-time.After(connectTimeout):
	}
	return f
}

// Close stops listening.
func (f *Fanout) Close() {
	f.stop()
	<-f.done
}

// Notify rings the room's bell on every server, this one included.
func (f *Fanout) Notify(ctx context.Context, roomID string) error {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	if _, err := f.db.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, roomChannel, roomID); err != nil {
		return fmt.Errorf("notify room %q: %w", roomID, storeError(err))
	}
	return nil
}

// Listen returns a bell that rings after each Notify for the room.
func (f *Fanout) Listen(roomID string) (<-chan struct{}, func()) {
	f.mu.Lock()
	f.rooms[roomID]++
	f.mu.Unlock()
	bell, stop := f.local.Listen(roomID)
	var once sync.Once
	return bell, func() {
		once.Do(func() {
			stop()
			f.mu.Lock()
			if f.rooms[roomID]--; f.rooms[roomID] <= 0 {
				delete(f.rooms, roomID)
			}
			f.mu.Unlock()
		})
	}
}

// listen keeps one connection listening, connecting again after a loss.
func (f *Fanout) listen(ctx context.Context, ready chan<- struct{}) {
	defer close(f.done)
	pause := 250 * time.Millisecond
	for ctx.Err() == nil {
		err := f.listenOnce(ctx, ready)
		ready = nil
		if ctx.Err() != nil {
			return
		}
		f.log.Warn("live rooms: listening for notifications failed; trying again", "err", err, "in", pause)
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
		pause = min(2*pause, 5*time.Second)
	}
}

func (f *Fanout) listenOnce(ctx context.Context, ready chan<- struct{}) error {
	conn, err := pgx.ConnectConfig(ctx, f.db.pool.Config().ConnConfig)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+roomChannel); err != nil {
		return err
	}
	f.ringAll(ctx) // whatever was sent while no connection listened
	if ready != nil {
		close(ready)
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		f.local.Notify(ctx, n.Payload)
	}
}

// ringAll rings every room with listeners on this server.
func (f *Fanout) ringAll(ctx context.Context) {
	f.mu.Lock()
	ids := make([]string, 0, len(f.rooms))
	for id := range f.rooms {
		ids = append(ids, id)
	}
	f.mu.Unlock()
	for _, id := range ids {
		f.local.Notify(ctx, id)
	}
}
