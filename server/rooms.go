package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/server/store"
	"fencelab/views"
	"fencelab/views/paths"
)

// RoomConfig bounds the live rooms.
type RoomConfig struct {
	TTL       time.Duration // how long a room takes answers; 0: 4 hours
	MaxPhones int           // phones connected to one room on one server; 0: 400
	// MaxPhonesPerClient is how many of a room's phones one client (an
	// address, an IPv6 /64) may hold, so that no client can fill a room: 0:
	// three quarters of MaxPhones (300), a class of 300 behind one NAT.
	MaxPhonesPerClient int
	// Recheck is how often a room with connections is read again, besides
	// each change, so that an end or a takedown made by another process
	// closes its streams: 0: 15 s.
	Recheck        time.Duration
	MaxConnections int // connections to live rooms on one server; 0: 1,500
}

func (rc RoomConfig) withDefaults() RoomConfig {
	if rc.TTL <= 0 {
		rc.TTL = 4 * time.Hour
	}
	if rc.MaxPhones <= 0 {
		rc.MaxPhones = 400
	}
	if rc.MaxPhonesPerClient <= 0 || rc.MaxPhonesPerClient > rc.MaxPhones {
		rc.MaxPhonesPerClient = max(rc.MaxPhones*3/4, 1)
	}
	if rc.Recheck <= 0 {
		rc.Recheck = keepAlive
	}
	if rc.MaxConnections <= 0 {
		rc.MaxConnections = 1500
	}
	return rc
}

// Cookies: the presenter's secret, only sent to the room's own controls;
// the student's id, which makes one answer per student per question.
const (
	studentCookie = "fencelab_student"
	maxName       = 40
	codeAlphabet  = "ABCDEFGHJKMNPQRSTUVWXYZ23456789" // no 0/O, 1/I/L
	codeLength    = 6
)

func presenterCookie(id string) string { return "fencelab_room_" + id }

var (
	errRoomEnded  = echo.NewHTTPError(http.StatusGone, "This live room has ended.")
	errNotPresent = echo.NewHTTPError(http.StatusForbidden, "Only the presenter’s browser can move this room "+
		"(or the one it was handed over to).")
	errRoomsOff    = echo.NewHTTPError(http.StatusNotFound, "This server keeps no live rooms.")
	errBadRoomForm = echo.NewHTTPError(http.StatusBadRequest, "The room was asked for without a presentation to follow.")
)

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

func randomString(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func randomCode() string {
	b := make([]byte, codeLength)
	rand.Read(b)
	for i := range b {
		b[i] = codeAlphabet[int(b[i])%len(codeAlphabet)]
	}
	return string(b)
}

func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// handleCreateRoom starts a live room for a presentation: the room's
// secret goes to the presenter's browser in a cookie that only the room's
// controls receive, and the presentation opens in predict mode with the
// room's code and QR code.
func (s *Server) handleCreateRoom(c echo.Context) error {
	if s.rooms == nil {
		return errRoomsOff
	}
	ctx := c.Request().Context()
	page := c.FormValue("page")
	q := queryOf(c.Request().Form)
	deck, err := s.deck(ctx, page, q)
	if err != nil {
		return err
	}
	settle, err := s.admitRoom(c)
	if err != nil {
		return err
	}
	secret := randomString(32)
	now := time.Now()
	r := store.Room{ID: randomString(12), SecretHash: hashSecret(secret), Page: page, Title: deck.Report.Scenario.Title,
		Policies: policyNames(q.Policies), Diagram: string(deck.Diagram), Step: 1, CreatedAt: now, ExpiresAt: now.Add(s.roomLimits.TTL)}
	for range 5 {
		r.Code = randomCode()
		if err = s.rooms.CreateRoom(ctx, r); !errors.Is(err, store.ErrCodeTaken) {
			break
		}
	}
	settle(err == nil)
	if err != nil {
		return fmt.Errorf("create room: %w", err)
	}
	s.metrics.roomsCreated.Inc()
	s.setPresenterCookie(c, r, secret)
	v := url.Values{"room": {r.ID}}
	return seeOther(c, paths.PresentPathOf(page)+"?"+v.Encode())
}

// admitRoom charges a new live room to the client's budget and its
// network's, and to the store's size, or says which it is over; settle
// says whether the room was then created: if not, the charges are given
// back.
func (s *Server) admitRoom(c echo.Context) (settle func(created bool), err error) {
	undoClient, over := s.budgets.takeRoom(clientKey(c))
	if over != nil {
		return nil, s.refuse(c, over)
	}
	undoNet, over := s.networks.takeRoom(networkKey(c))
	if over != nil {
		undoClient()
		return nil, s.refuse(c, over)
	}
	settleSize, err := s.checkSize(c, roomBytes)
	if err != nil {
		undoClient()
		undoNet()
		return nil, err
	}
	return func(created bool) {
		settleSize(created)
		if !created {
			undoClient()
			undoNet()
		}
	}, nil
}

// roomBytes is what a room is counted for against the store's size when
// it is created, answerBytes each answer, and questionBytes each question
// beside its words: the rows, keys and index entries, rounded up. The
// store's measure, once a second, has the truth.
const (
	roomBytes     = 2 << 10
	answerBytes   = 256
	questionBytes = 256
)

// policyNames spells policies as strings, for a query or a stored room.
func policyNames(ps []lab.Policy) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p)
	}
	return out
}

// deck is the presentation of page (a ScenarioPath or a RunPath) in
// predict mode, under the given policies.
func (s *Server) deck(ctx context.Context, page string, q pageQuery) (views.PresentPage, error) {
	var sc *lab.Scenario
	var tr *lab.Trace
	name, isScenario := paths.CutScenarioPath(page)
	id, isRun := paths.CutRunPath(page)
	switch {
	case isScenario:
		b, ok := s.library.Get(name)
		if !ok {
			return views.PresentPage{}, errNoScenario
		}
		sc, tr = b.Scenario, lab.Replay(b.Scenario)
	case isRun:
		run, err := s.runByID(ctx, id)
		if err != nil {
			return views.PresentPage{}, err
		}
		if sc, tr, err = decodeRun(run); err != nil {
			return views.PresentPage{}, err
		}
	default:
		return views.PresentPage{}, errBadRoomForm
	}
	return views.PresentPage{Report: newReport(sc, tr, q.Policies), Diagram: q.Diagram, Page: page, Predict: true}, nil
}

// decks remembers each room's presentation: rebuilt from the store after a restart.
type decks struct {
	mu sync.Mutex
	m  map[string]views.PresentPage
}

// roomDeck is the room's presentation, kept in memory once built; a room
// on a run taken down since answers 410, kept or not.
func (s *Server) roomDeck(ctx context.Context, r store.Room) (views.PresentPage, error) {
	if id, ok := paths.CutRunPath(r.Page); ok {
		if err := s.checkShown(ctx, id); err != nil {
			return views.PresentPage{}, err
		}
	}
	s.decks.mu.Lock()
	d, ok := s.decks.m[r.ID]
	s.decks.mu.Unlock()
	if ok {
		return d, nil
	}
	d, err := s.deck(ctx, r.Page, roomQuery(r))
	if err != nil {
		return d, err
	}
	s.decks.mu.Lock()
	if len(s.decks.m) > 1000 {
		s.decks.m = map[string]views.PresentPage{}
	}
	s.decks.m[r.ID] = d
	s.decks.mu.Unlock()
	return d, nil
}

// roomState reads a room, its presentation and its questions.
func (s *Server) roomState(ctx context.Context, id string) (store.Room, views.PresentPage, []store.Question, error) {
	r, err := s.rooms.Room(ctx, id)
	if err != nil {
		return store.Room{}, views.PresentPage{}, nil, err
	}
	deck, err := s.roomDeck(ctx, r)
	if err != nil {
		return store.Room{}, views.PresentPage{}, nil, err
	}
	qs, err := s.rooms.Questions(ctx, id)
	return r, deck, qs, err
}

// roomByID is the room named by :id, expired or not.
func (s *Server) roomByID(c echo.Context) (store.Room, error) {
	if s.rooms == nil {
		return store.Room{}, errRoomsOff
	}
	return s.rooms.Room(c.Request().Context(), c.Param("id"))
}

// presenterRoom is the room named by :id when the request carries its
// secret and the room has not ended.
func (s *Server) presenterRoom(c echo.Context) (store.Room, error) {
	r, err := s.roomByID(c)
	if err != nil {
		return store.Room{}, err
	}
	if !time.Now().Before(r.ExpiresAt) {
		return store.Room{}, errRoomEnded
	}
	if !isPresenter(c, r) {
		return store.Room{}, errNotPresent
	}
	return r, nil
}

// handleRoomStep moves the room to the presenter's step and opens the
// step's question, if it has one.
func (s *Server) handleRoomStep(c echo.Context) error {
	r, err := s.presenterRoom(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	deck, err := s.roomDeck(ctx, r)
	if err != nil {
		return err
	}
	step, err := strconv.Atoi(c.FormValue("step"))
	if err != nil || step < 1 || step > deck.Steps() {
		return echo.NewHTTPError(http.StatusBadRequest, "The step must be a number from 1 to "+strconv.Itoa(deck.Steps())+".")
	}
	var q *store.Question
	settle := func(bool) {}
	if ask, answer, _ := deck.Question(step); ask != "" {
		q = &store.Question{Step: step, Ask: ask, Answer: string(answer), OpenedAt: time.Now()}
		if settle, err = s.admitQuestion(c, r.ID, q); err != nil {
			return err
		}
	}
	err = s.rooms.MoveRoom(ctx, r.ID, step, q)
	settle(err == nil)
	if err != nil {
		return err
	}
	return s.ringRoom(c, r.ID)
}

// admitQuestion checks that the store has room for the question q opens,
// as it does for a room and an answer; settle says whether the step was
// moved. A question asked before (the presenter went back) is no new
// row, and is neither counted nor refused.
func (s *Server) admitQuestion(c echo.Context, roomID string, q *store.Question) (settle func(moved bool), err error) {
	asked, err := s.rooms.Questions(c.Request().Context(), roomID)
	if err != nil {
		return nil, err
	}
	if slices.ContainsFunc(asked, func(a store.Question) bool { return a.Step == q.Step }) {
		return func(bool) {}, nil
	}
	return s.checkSize(c, questionBytes+len(q.Ask)+len(q.Answer))
}

// handleRoomReveal shows the answer to the question at a step.
func (s *Server) handleRoomReveal(c echo.Context) error {
	r, err := s.presenterRoom(c)
	if err != nil {
		return err
	}
	step, _ := strconv.Atoi(c.FormValue("step"))
	if err := s.rooms.Reveal(c.Request().Context(), r.ID, step, time.Now()); err != nil {
		return err
	}
	return s.ringRoom(c, r.ID)
}

func (s *Server) ringRoom(c echo.Context, id string) error {
	if err := s.fanout.Notify(c.Request().Context(), id); err != nil {
		return fmt.Errorf("notify room %s: %w", id, err)
	}
	return c.NoContent(http.StatusNoContent)
}

// handlePresenterEvents streams the room to its presenter, counts included.
func (s *Server) handlePresenterEvents(c echo.Context) error {
	r, err := s.presenterRoom(c)
	if err != nil {
		return err
	}
	return s.streamRoom(c, r, true, "")
}
