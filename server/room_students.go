package server

import (
	"context"
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
	code := normalCode(c.Param("code"))
	if code == "" || len(code) > 12 {
		return store.Room{}, store.ErrNoRoom
	}
	return s.rooms.RoomByCode(c.Request().Context(), code, time.Now())
}

// handleJoin asks for a code, or follows it to the room.
func (s *Server) handleJoin(c echo.Context) error {
	code := normalCode(c.QueryParam("code"))
	if code == "" {
		return render(c, http.StatusOK, views.Join(views.JoinPage{}))
	}
	return seeOther(c, views.JoinPath(code))
}

// student is the student's id from their cookie, set when missing.
func student(c echo.Context) string {
	if ck, err := c.Cookie(studentCookie); err == nil && len(ck.Value) >= 16 && len(ck.Value) <= 64 {
		return ck.Value
	}
	id := randomString(16)
	c.SetCookie(&http.Cookie{Name: studentCookie, Value: id, Path: views.JoinFormPath(), HttpOnly: true, Secure: c.IsTLS(),
		SameSite: http.SameSiteLaxMode, MaxAge: 7 * 24 * 3600})
	c.Request().AddCookie(&http.Cookie{Name: studentCookie, Value: id})
	return id
}

// handleStudentPage is the room on a phone.
func (s *Server) handleStudentPage(c echo.Context) error {
	r, err := s.liveRoomByCode(c)
	if errors.Is(err, store.ErrNoRoom) {
		p := views.JoinPage{Code: normalCode(c.Param("code")), Error: "There is no live room with this code (or it has ended). Check the code on the presenter’s screen."}
		return render(c, http.StatusNotFound, views.Join(p))
	}
	if err != nil {
		return err
	}
	return s.renderStudent(c, r, c.QueryParam("error"))
}

func (s *Server) renderStudent(c echo.Context, r store.Room, problem string) error {
	ctx := c.Request().Context()
	me := student(c)
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
	a := store.Answer{Step: step, Student: student(c), Name: name, Guess: guess, AnsweredAt: time.Now()}
	err = s.answer(c.Request().Context(), r, a)
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
	target := views.JoinPath(r.Code)
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
		ev["summary"] = views.RoomPath(r.ID)
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
	return s.streamRoom(c, r, false, student(c))
}

// streamRoom sends the room's view at once (a phone that reconnects
// catches up), then each new one, until the client leaves, the room
// ends (its time is up, or the presenter ended it) or the server shuts
// down. A full room or server says so in a "full" event and closes.
func (s *Server) streamRoom(c echo.Context, r store.Room, presenter bool, student string) error {
	sse := &eventStream{c: c}
	sub, leave, full := s.hub.join(r, presenter, student)
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
