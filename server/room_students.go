package server

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
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
	p := views.StudentPage{Deck: deck, Code: r.Code, Step: r.Step, Mine: map[int]string{}, Open: map[int]bool{}, Shown: map[int]bool{}}
	for _, a := range mine {
		p.Mine[a.Step] = a.Guess
		p.Name = a.Name
	}
	for _, q := range qs {
		p.Open[q.Step] = !q.Revealed
		p.Shown[q.Step] = q.Revealed
	}
	switch problem {
	case "answered":
		p.Error = "You have already answered this question."
	case "closed":
		p.Error = "This question no longer takes answers."
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return render(c, http.StatusOK, views.Student(p))
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
	err = s.rooms.Answer(c.Request().Context(), r.ID, a)
	script := c.Request().Header.Get("X-Requested-With") != ""
	problem := ""
	switch {
	case errors.Is(err, store.ErrAnswered):
		problem = "answered"
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

// handleStudentEvents streams the room to a phone.
func (s *Server) handleStudentEvents(c echo.Context) error {
	r, err := s.liveRoomByCode(c)
	if err != nil {
		if errors.Is(err, store.ErrNoRoom) {
			sse := &eventStream{c: c}
			sse.send("gone", map[string]string{"message": "This live room has ended."})
			return sse.err
		}
		return err
	}
	return s.streamRoom(c, r, false)
}

// streamRoom sends the room's view at once (a phone that reconnects
// catches up), then each new one, until the client leaves, the room
// ends or the server shuts down. A full room or server says so in a
// "full" event and closes.
func (s *Server) streamRoom(c echo.Context, r store.Room, presenter bool) error {
	sse := &eventStream{c: c}
	sub, leave, full := s.hub.join(r, presenter)
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
			sse.send("gone", map[string]string{"message": "This live room has ended."})
			return sse.err
		case b := <-sub.mail:
			sse.sendRaw("room", b)
		case <-tick.C:
			sse.comment("")
		}
	}
	return nil
}

// handleRoomSummary is a room after class: its questions, the hardest
// first. Anyone with the link may read it, as a saved run.
func (s *Server) handleRoomSummary(c echo.Context) error {
	r, err := s.roomByID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	_, deck, qs, err := s.roomState(ctx, r.ID)
	if err != nil {
		return err
	}
	answers, err := s.rooms.Answers(ctx, r.ID, "")
	if err != nil {
		return err
	}
	sum := views.RoomSummary{Title: r.Title, Page: r.Page, ID: r.ID, Created: r.CreatedAt.UTC().Format("2 January 2006, 15:04 UTC")}
	for _, q := range qs {
		_, _, reveal := deck.Question(q.Step)
		sq := views.SummaryQuestion{Step: q.Step, Ask: q.Ask, Answer: q.Answer, Reveal: reveal, Revealed: q.Revealed}
		for _, a := range answers {
			if a.Step != q.Step {
				continue
			}
			if a.Guess == q.Answer {
				sq.Right++
				sq.RightBy = appendName(sq.RightBy, a.Name)
			} else {
				sq.Wrong++
				sq.WrongBy = appendName(sq.WrongBy, a.Name)
			}
		}
		sum.Questions = append(sum.Questions, sq)
	}
	sort.SliceStable(sum.Questions, func(i, j int) bool {
		return sum.Questions[i].WrongShare() > sum.Questions[j].WrongShare()
	})
	return render(c, http.StatusOK, views.RoomSummaryPage(sum))
}

func appendName(names []string, name string) []string {
	if name == "" {
		return names
	}
	return append(names, name)
}
