package server

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"fencelab/server/store"
	"fencelab/views"
)

// roomEvent is the data of a room's "room" event. Phones get the step and
// the question; the presenter also the phones connected here and the
// answers so far. Answers arriving change only the presenter's view, so
// 300 answers do not become 300 × 300 messages.
type roomEvent struct {
	Step     int            `json:"step"`
	Steps    int            `json:"steps"`
	Phones   int            `json:"phones,omitempty"`
	Question *questionEvent `json:"question"`
	Revealed []int          `json:"revealed"`
}

type questionEvent struct {
	Step     int            `json:"step"`
	Ask      string         `json:"ask"`
	Open     bool           `json:"open"`
	Answers  int            `json:"answers,omitempty"`
	Revealed bool           `json:"revealed"`
	Answer   string         `json:"answer,omitempty"` // once revealed
	Reveal   string         `json:"reveal,omitempty"`
	Split    map[string]int `json:"split,omitempty"`
}

// hub holds this server's connections to live rooms: per room one
// goroutine that hears the room's bell, reads the room from the store and
// hands each connection the newest view; a slow phone skips views it had
// no time for, never falls behind.
type hub struct {
	s      *Server
	fanout store.Fanout
	limits RoomConfig

	mu    sync.Mutex
	rooms map[string]*liveRoom
	conns int
}

type liveRoom struct {
	id     string
	subs   map[*subscriber]struct{}
	phones int
	kick   chan struct{}
	done   chan struct{}
}

// subscriber is one connection: its mailbox holds the newest message only.
type subscriber struct {
	presenter bool
	mail      chan []byte
	last      string
}

func (sub *subscriber) put(b []byte) {
	if string(b) == sub.last {
		return
	}
	sub.last = string(b)
	select {
	case <-sub.mail:
	default:
	}
	sub.mail <- b
}

func newHub(s *Server, f store.Fanout, limits RoomConfig) *hub {
	return &hub{s: s, fanout: f, limits: limits, rooms: map[string]*liveRoom{}}
}

// errRoomFull and errServerFull say why a phone was turned away.
var (
	errRoomFull   = "This room is full: it has %d phones connected, its limit. Ask the presenter to start another room."
	errServerFull = "This server is full: it has %d connections to live rooms, its limit. Try again in a minute."
)

// join adds a connection to room r, or says why not.
func (h *hub) join(r store.Room, presenter bool) (*subscriber, func(), string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	lr := h.rooms[r.ID]
	if h.conns >= h.limits.MaxConnections {
		return nil, nil, sprintf(errServerFull, h.limits.MaxConnections)
	}
	if !presenter && lr != nil && lr.phones >= h.limits.MaxPhones {
		return nil, nil, sprintf(errRoomFull, h.limits.MaxPhones)
	}
	if lr == nil {
		lr = &liveRoom{id: r.ID, subs: map[*subscriber]struct{}{}, kick: make(chan struct{}, 1), done: make(chan struct{})}
		h.rooms[r.ID] = lr
		go h.run(lr)
	}
	sub := &subscriber{presenter: presenter, mail: make(chan []byte, 1)}
	lr.subs[sub] = struct{}{}
	h.conns++
	if !presenter {
		lr.phones++
	}
	ring(lr.kick)
	var once sync.Once
	return sub, func() { once.Do(func() { h.leave(lr, sub) }) }, ""
}

// counts are the rooms with a connection to this server, and the phones
// connected to them.
func (h *hub) counts() (rooms, phones int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, lr := range h.rooms {
		phones += lr.phones
	}
	return len(h.rooms), phones
}

func (h *hub) leave(lr *liveRoom, sub *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(lr.subs, sub)
	h.conns--
	if !sub.presenter {
		lr.phones--
	}
	if len(lr.subs) == 0 {
		delete(h.rooms, lr.id)
		close(lr.done)
		return
	}
	ring(lr.kick)
}

func ring(bell chan struct{}) {
	select {
	case bell <- struct{}{}:
	default:
	}
}

// run serves one room on this server until its last connection leaves.
func (h *hub) run(lr *liveRoom) {
	bell, stop := h.fanout.Listen(lr.id)
	defer stop()
	for {
		select {
		case <-lr.done:
			return
		case <-bell:
		case <-lr.kick:
		}
		h.broadcast(lr)
	}
}

// broadcast reads the room and hands every connection its view.
func (h *hub) broadcast(lr *liveRoom) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, deck, qs, err := h.s.roomState(ctx, lr.id)
	if err != nil {
		h.s.log.Error("room state", "room", lr.id, "err", err)
		return
	}
	h.mu.Lock()
	phones := lr.phones
	subs := make([]*subscriber, 0, len(lr.subs))
	for sub := range lr.subs {
		subs = append(subs, sub)
	}
	h.mu.Unlock()
	student, _ := json.Marshal(roomView(r, deck, qs, false, 0))
	presenter, _ := json.Marshal(roomView(r, deck, qs, true, phones))
	for _, sub := range subs {
		if sub.presenter {
			sub.put(presenter)
		} else {
			sub.put(student)
		}
	}
}

// roomView is what a phone, or the presenter, sees of the room now.
func roomView(r store.Room, deck views.PresentPage, qs []store.Question, presenter bool, phones int) roomEvent {
	ev := roomEvent{Step: r.Step, Steps: deck.Steps(), Revealed: []int{}}
	if presenter {
		ev.Phones = phones
	}
	for _, q := range qs {
		if q.Revealed {
			ev.Revealed = append(ev.Revealed, q.Step)
		}
		if q.Step != r.Step {
			continue
		}
		qe := &questionEvent{Step: q.Step, Ask: q.Ask, Open: !q.Revealed, Revealed: q.Revealed}
		if presenter {
			qe.Answers = q.Accepted + q.Rejected
		}
		if q.Revealed {
			_, _, qe.Reveal = deck.Question(q.Step)
			qe.Answer = q.Answer
			qe.Answers = q.Accepted + q.Rejected
			qe.Split = map[string]int{"accepted": q.Accepted, "rejected": q.Rejected}
		}
		ev.Question = qe
	}
	return ev
}
