package server

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"fencelab/server/store"
	"fencelab/views"
)

// roomEvent is the data of a room's "room" event on a phone: the step,
// the question, and at the reveal how the class split. Answers arriving
// change only the presenter's view (presenterEvent), so 300 answers do
// not become 300 × 300 messages. Every count is a number, zero included:
// a script never reads undefined.
type roomEvent struct {
	Step     int            `json:"step"`
	Steps    int            `json:"steps"`
	Question *questionEvent `json:"question"`
	Revealed []int          `json:"revealed"`
	// Skipped are the questions the class moved on from unrevealed: they
	// take no more answers (unless the presenter comes back to them).
	Skipped   []int `json:"skipped"`
	ShowNames bool  `json:"showNames"`
}

type questionEvent struct {
	Step     int    `json:"step"`
	Ask      string `json:"ask"`
	Open     bool   `json:"open"`
	ClosesAt int64  `json:"closesAt"` // Unix milliseconds when the countdown ends; 0: no countdown
	Revealed bool   `json:"revealed"`
	Answer   string `json:"answer"` // once revealed
	Reveal   string `json:"reveal"`
	// Split is how the class answered, null until the reveal.
	Split *splitEvent `json:"split"`
}

// splitEvent is the class's answers to one question, in counts and in
// whole percents that add up to 100 (both 0 without answers).
type splitEvent struct {
	Accepted        int `json:"accepted"`
	Rejected        int `json:"rejected"`
	AcceptedPercent int `json:"acceptedPercent"`
	RejectedPercent int `json:"rejectedPercent"`
}

func newSplit(accepted, rejected int) *splitEvent {
	sp := &splitEvent{Accepted: accepted, Rejected: rejected}
	if n := accepted + rejected; n > 0 {
		sp.AcceptedPercent = (200*accepted + n) / (2 * n) // rounded half up
		sp.RejectedPercent = 100 - sp.AcceptedPercent
	}
	return sp
}

// presenterEvent is the presenter's view: the phone's, and the students
// connected to this server (each student's cookie counted once, however
// many tabs), their connections, and the answers so far.
type presenterEvent struct {
	roomEvent
	Question    *presenterQuestion `json:"question"`
	Students    int                `json:"students"`
	Connections int                `json:"connections"`
}

type presenterQuestion struct {
	*questionEvent
	Answers int `json:"answers"`
	// Of is whom the answers are out of: the students connected, or
	// those who answered when more did (some left since).
	Of int `json:"of"`
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
	id       string
	subs     map[*subscriber]struct{}
	phones   int            // connections of students
	students map[string]int // connections by student id
	clients  map[string]int // students' connections by client (clientKey)
	kick     chan struct{}
	done     chan struct{}
}

// subscriber is one connection: its mailbox holds the newest message
// only; gone is closed when the room ends.
type subscriber struct {
	presenter bool
	student   string
	client    string
	mail      chan []byte
	last      string
	gone      chan struct{}
	end       sync.Once
}

// close tells the connection that the room has ended.
func (sub *subscriber) close() { sub.end.Do(func() { close(sub.gone) }) }

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
	errClientFull = "This room has %d phones connected from your address (or network), as many as one address " +
		"may hold, so that others can join too. Close a tab, or join from another network."
)

// join adds a connection to room r, a presenter's or a student's, or says why not.
func (h *hub) join(r store.Room, presenter bool, student, client string) (*subscriber, func(), string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	lr := h.rooms[r.ID]
	if h.conns >= h.limits.MaxConnections {
		return nil, nil, sprintf(errServerFull, h.limits.MaxConnections)
	}
	if !presenter && lr != nil && lr.phones >= h.limits.MaxPhones {
		return nil, nil, sprintf(errRoomFull, h.limits.MaxPhones)
	}
	if !presenter && lr != nil && lr.clients[client] >= h.limits.MaxPhonesPerClient {
		return nil, nil, sprintf(errClientFull, h.limits.MaxPhonesPerClient)
	}
	if lr == nil {
		lr = &liveRoom{id: r.ID, subs: map[*subscriber]struct{}{}, students: map[string]int{}, clients: map[string]int{},
			kick: make(chan struct{}, 1), done: make(chan struct{})}
		h.rooms[r.ID] = lr
		go h.run(lr)
	}
	sub := &subscriber{presenter: presenter, student: student, client: client, mail: make(chan []byte, 1), gone: make(chan struct{})}
	lr.subs[sub] = struct{}{}
	h.conns++
	if !presenter {
		lr.phones++
		lr.students[student]++
		lr.clients[client]++
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
		if lr.students[sub.student]--; lr.students[sub.student] <= 0 {
			delete(lr.students, sub.student)
		}
		if lr.clients[sub.client]--; lr.clients[sub.client] <= 0 {
			delete(lr.clients, sub.client)
		}
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
// Besides each change it reads the room every Recheck, so that a room
// ended or taken down by another process (`fencelab admin hide` of its
// run) closes its streams within that time.
func (h *hub) run(lr *liveRoom) {
	bell, stop := h.fanout.Listen(lr.id)
	defer stop()
	tick := time.NewTicker(h.limits.Recheck)
	defer tick.Stop()
	for {
		select {
		case <-lr.done:
			return
		case <-bell:
		case <-lr.kick:
		case <-tick.C:
		}
		h.broadcast(lr)
	}
}

// broadcast reads the room and hands every connection its view; when
// the room has ended, it closes them all.
func (h *hub) broadcast(lr *liveRoom) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, deck, qs, err := h.s.roomState(ctx, lr.id)
	gone := store.CodeOf(err) == store.Gone // its run was taken down
	if err != nil && !gone {
		h.s.log.Error("room state", "room", lr.id, "err", err)
		return
	}
	h.mu.Lock()
	phones, students := lr.phones, len(lr.students)
	subs := make([]*subscriber, 0, len(lr.subs))
	for sub := range lr.subs {
		subs = append(subs, sub)
	}
	h.mu.Unlock()
	if gone || !time.Now().Before(r.ExpiresAt) {
		for _, sub := range subs {
			sub.close()
		}
		return
	}
	view := roomView(r, deck, qs)
	student, _ := json.Marshal(view)
	presenter, _ := json.Marshal(presenterView(view, qs, students, phones))
	for _, sub := range subs {
		if sub.presenter {
			sub.put(presenter)
		} else {
			sub.put(student)
		}
	}
}

// roomView is what a phone sees of the room now.
func roomView(r store.Room, deck views.PresentPage, qs []store.Question) roomEvent {
	ev := roomEvent{Step: r.Step, Steps: deck.Steps(), Revealed: []int{}, Skipped: []int{}, ShowNames: r.ShowNames}
	for _, q := range qs {
		switch {
		case q.Revealed:
			ev.Revealed = append(ev.Revealed, q.Step)
		case q.Step != r.Step:
			ev.Skipped = append(ev.Skipped, q.Step)
		}
		if q.Step == r.Step {
			ev.Question = questionView(r, deck, q)
		}
	}
	return ev
}

func questionView(r store.Room, deck views.PresentPage, q store.Question) *questionEvent {
	qe := &questionEvent{Step: q.Step, Ask: q.Ask, Open: !q.Revealed, Revealed: q.Revealed}
	if r.Countdown > 0 && qe.Open {
		qe.ClosesAt = closesAt(r, q).UnixMilli()
	}
	if q.Revealed {
		_, _, qe.Reveal = deck.Question(q.Step)
		qe.Answer = q.Answer
		qe.Split = newSplit(q.Accepted, q.Rejected)
	}
	return qe
}

// closesAt is when the question's countdown ends.
func closesAt(r store.Room, q store.Question) time.Time {
	return q.OpenedAt.Add(time.Duration(r.Countdown) * time.Second)
}

// presenterView adds the counts to a phone's view.
func presenterView(ev roomEvent, qs []store.Question, students, phones int) presenterEvent {
	pe := presenterEvent{roomEvent: ev, Students: students, Connections: phones}
	if ev.Question != nil {
		for _, q := range qs {
			if q.Step == ev.Question.Step {
				n := q.Accepted + q.Rejected
				pe.Question = &presenterQuestion{questionEvent: ev.Question, Answers: n, Of: max(n, students)}
			}
		}
	}
	return pe
}
