package server

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"fencelab/server/store"
	"fencelab/views"
	"fencelab/views/paths"
)

// keepAlive is how often an idle room stream sends a comment, so that
// proxies keep it open and a phone gone away is noticed.
const keepAlive = 15 * time.Second

// normalCode is a code as typed, made comparable: upper case, no spaces or dashes.
func normalCode(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ' || r == '-':
			return -1
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		}
		return r
	}, s)
}

// liveRoom is the room with the code in :code, not yet expired.
func (s *Server) liveRoomByCode(c echo.Context) (store.Room, error) {
	if s.rooms == nil {
		return store.Room{}, errRoomsOff
	}
	if over := s.budgets.joinSpent(clientKey(c)); over != nil {
		return store.Room{}, s.refuse(c, over)
	}
	if over := s.networks.joinSpent(networkKey(c)); over != nil {
		return store.Room{}, s.refuse(c, over)
	}
	code := normalCode(c.Param("code"))
	r, err := store.Room{}, error(store.ErrNoRoom)
	if code != "" && len(code) <= 12 {
		r, err = s.rooms.RoomByCode(c.Request().Context(), code, time.Now())
	}
	if errors.Is(err, store.ErrNoRoom) {
		// A wrong code costs the client one of its misses, a right one
		// nothing: a class joining at once is never refused, a guesser
		// soon is (docs/operations.md gives the arithmetic).
		s.budgets.takeMiss(clientKey(c))
		s.networks.takeMiss(networkKey(c))
	}
	return r, err
}

// handleJoin asks for a code, or follows it to the room.
func (s *Server) handleJoin(c echo.Context) error {
	code := normalCode(c.QueryParam("code"))
	if code == "" {
		return render(c, http.StatusOK, views.Join(views.JoinPage{}))
	}
	return seeOther(c, paths.JoinPath(code))
}

// A student is a cookie the server set: a random id and the server's
// keyed hash of it, so that an id a client makes up is no student, and
// each new student costs the client a visit to the room's page first.
// studentTag is the hash's length in base64url characters (72 bits).
const studentTag = 12

// student is the student's id from their cookie, set when missing or not
// the server's.
func (s *Server) student(c echo.Context) string {
	if id, ok := s.knownStudent(c); ok {
		return id
	}
	id := randomString(16)
	value := id + "." + s.studentMAC(id)
	c.SetCookie(&http.Cookie{Name: studentCookie, Value: value, Path: paths.RouteJoinForm, HttpOnly: true, Secure: s.secure(c),
		SameSite: http.SameSiteLaxMode, MaxAge: 7 * 24 * 3600})
	c.Request().AddCookie(&http.Cookie{Name: studentCookie, Value: value})
	return id
}

// knownStudent is the student of the request's cookie, when the server set it.
func (s *Server) knownStudent(c echo.Context) (string, bool) {
	ck, err := c.Cookie(studentCookie)
	if err != nil {
		return "", false
	}
	id, tag, ok := strings.Cut(ck.Value, ".")
	if !ok || len(id) < 16 || len(id) > 32 || !hmac.Equal([]byte(tag), []byte(s.studentMAC(id))) {
		return "", false
	}
	return id, true
}

func (s *Server) studentMAC(id string) string {
	mac := hmac.New(sha256.New, s.secret)
	mac.Write([]byte("student\x00" + id))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))[:studentTag]
}

// errNoStudent refuses an answer without a student the server set.
var errNoStudent = echo.NewHTTPError(http.StatusForbidden,
	"This browser has not opened the room yet (or keeps no cookies): open the room’s page, then answer.")

// handleStudentPage is the room on a phone.
func (s *Server) handleStudentPage(c echo.Context) error {
	r, err := s.liveRoomByCode(c)
	if errors.Is(err, store.ErrNoRoom) {
		p := views.JoinPage{Code: normalCode(c.Param("code")), Error: "There is no live room with this code " +
			"(or it has ended). Check the code on the presenter’s screen."}
		return render(c, http.StatusNotFound, views.Join(p))
	}
	if err != nil {
		return err
	}
	return s.renderStudent(c, r, c.QueryParam("error"))
}

func (s *Server) renderStudent(c echo.Context, r store.Room, problem string) error {
	ctx := c.Request().Context()
	me := s.student(c)
	_, deck, qs, err := s.roomState(ctx, r.ID)
	if err != nil {
		return err
	}
	mine, err := s.rooms.Answers(ctx, r.ID, me)
	if err != nil {
		return err
	}
	p := views.StudentPage{Deck: deck, Code: r.Code, Step: r.Step, Mine: map[int]string{}, Open: map[int]bool{}, Shown: map[int]bool{},
		ShowNames: r.ShowNames}
	for _, a := range mine {
		p.Mine[a.Step] = a.Guess
		p.Name = a.Name
	}
	for _, q := range qs {
		p.Open[q.Step] = !q.Revealed && q.Step == r.Step // the class moved on from the others
		p.Shown[q.Step] = q.Revealed
	}
	switch problem {
	case "answered":
		p.Error = "You have already answered this question."
	case "closed":
		p.Error = "This question no longer takes answers."
	case "moved":
		p.Error = "The class moved on: this question no longer takes answers."
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return render(c, http.StatusOK, views.Student(p))
}

// admitAnswer charges an answer to the client's and its network's
// budgets, and checks that the store has room for it; settle says whether
// it was stored. An answer refused later (answered already, closed) keeps
// its cost to the budgets: a flood of them costs the flooder.
func (s *Server) admitAnswer(c echo.Context) (settle func(stored bool), err error) {
	if over := s.budgets.takeAnswer(clientKey(c)); over != nil {
		return nil, s.refuse(c, over)
	}
	if over := s.networks.takeAnswer(networkKey(c)); over != nil {
		return nil, s.refuse(c, over)
	}
	return s.checkSize(c, answerBytes)
}

// errMovedOn refuses an answer to a question the presenter has left.
var errMovedOn = errors.New("the class moved on")

// answer records a, unless the room is at another step (the class moved
// on) or the question's countdown has run out.
func (s *Server) answer(ctx context.Context, r store.Room, a store.Answer) error {
	if a.Step != r.Step {
		return errMovedOn
	}
	if r.Countdown > 0 {
		qs, err := s.rooms.Questions(ctx, r.ID)
		if err != nil {
			return err
		}
		for _, q := range qs {
			if q.Step == a.Step && !a.AnsweredAt.Before(closesAt(r, q)) {
				return store.ErrNoQuestion
			}
		}
	}
	return s.rooms.Answer(ctx, r.ID, a)
}

// handleStudentAnswer records a student's answer: JSON for room.js, a
// redirect back to the room for a plain form.
func (s *Server) handleStudentAnswer(c echo.Context) error {
	r, err := s.liveRoomByCode(c)
	if err != nil {
		return err
	}
	step, _ := strconv.Atoi(c.FormValue("step"))
	guess := c.FormValue("guess")
	if guess != "accepted" && guess != "rejected" {
		return echo.NewHTTPError(http.StatusBadRequest, "The answer must be accepted or rejected.")
	}
	name := strings.TrimSpace(c.FormValue("name"))
	if !utf8.ValidString(name) {
		name = ""
	}
	if utf8.RuneCountInString(name) > maxName {
		name = string([]rune(name)[:maxName])
	}
	me, ok := s.knownStudent(c)
	if !ok {
		return errNoStudent
	}
	settle, err := s.admitAnswer(c)
	if err != nil {
		return err
	}
	a := store.Answer{Step: step, Student: me, Name: name, Guess: guess, AnsweredAt: time.Now()}
	err = s.answer(c.Request().Context(), r, a)
	settle(err == nil)
	script := c.Request().Header.Get("X-Requested-With") != ""
	problem := ""
	switch {
	case errors.Is(err, store.ErrAnswered):
		problem = "answered"
	case errors.Is(err, errMovedOn):
		problem = "moved"
	case errors.Is(err, store.ErrNoQuestion):
		problem = "closed"
	case err != nil:
		return err
	default:
		if err := s.fanout.Notify(c.Request().Context(), r.ID); err != nil {
			return fmt.Errorf("notify room %s: %w", r.ID, err)
		}
	}
	if script {
		status := http.StatusOK
		if problem != "" {
			status = http.StatusConflict
		}
		return writeJSON(c, status, map[string]string{"guess": guess, "problem": problem})
	}
	target := paths.JoinPath(r.Code)
	if problem != "" {
		target += "?" + url.Values{"error": {problem}}.Encode()
	}
	return seeOther(c, target)
}

// goneEvent is the last event of a room's stream: the final screen's words,
// and for the presenter the way to the summary.
func goneEvent(r store.Room) map[string]string {
	ev := map[string]string{"message": "This live room has ended. Thank you for taking part!"}
	if r.ID != "" {
		ev["summary"] = paths.RoomPath(r.ID)
	}
	return ev
}

// handleStudentEvents streams the room to a phone.
func (s *Server) handleStudentEvents(c echo.Context) error {
	r, err := s.liveRoomByCode(c)
	if err != nil {
		if errors.Is(err, store.ErrNoRoom) {
			sse := &eventStream{c: c}
			sse.send("gone", goneEvent(store.Room{}))
			return sse.err
		}
		return err
	}
	return s.streamRoom(c, r, false, s.student(c))
}

// streamRoom sends the room's view at once (a phone that reconnects
// catches up), then each new one, until the client leaves, the room
// ends (its time is up, or the presenter ended it) or the server shuts
// down. A full room or server says so in a "full" event and closes.
func (s *Server) streamRoom(c echo.Context, r store.Room, presenter bool, student string) error {
	sse := &eventStream{c: c}
	sub, leave, full := s.hub.join(r, presenter, student, clientKey(c))
	if full != "" {
		sse.send("full", map[string]string{"message": full})
		return sse.err
	}
	defer leave()
	// The server's write timeout is for pages: a stream lives as long as the room.
	_ = http.NewResponseController(c.Response()).SetWriteDeadline(time.Time{})
	ctx := c.Request().Context()
	ended := time.NewTimer(time.Until(r.ExpiresAt))
	defer ended.Stop()
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	sse.comment("connected")
	for sse.err == nil {
		select {
		case <-ctx.Done():
			return nil
		case <-s.shutdown:
			return nil
		case <-ended.C:
			sse.send("gone", goneEvent(r))
			return sse.err
		case <-sub.gone:
			sse.send("gone", goneEvent(r))
			return sse.err
		case b := <-sub.mail:
			sse.sendRaw("room", b)
		case <-tick.C:
			sse.comment("")
		}
	}
	return nil
}
