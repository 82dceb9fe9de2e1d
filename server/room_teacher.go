package server

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"fencelab/server/store"
	"fencelab/views"
	"fencelab/views/paths"
)

// handleRoomEnd ends the room: the phones' streams get a final screen and
// close, the code is free again, and the presenter goes to the summary.
func (s *Server) handleRoomEnd(c echo.Context) error {
	r, err := s.presenterRoom(c)
	if err != nil {
		return err
	}
	if err := s.rooms.EndRoom(c.Request().Context(), r.ID, time.Now()); err != nil {
		return err
	}
	if err := s.fanout.Notify(c.Request().Context(), r.ID); err != nil {
		return err
	}
	return s.roomDone(c, paths.RoomPath(r.ID))
}

// handleRoomOptions keeps the presenter's choices: names in the
// shareable summary, and the countdown per question.
func (s *Server) handleRoomOptions(c echo.Context) error {
	r, err := s.presenterRoom(c)
	if err != nil {
		return err
	}
	o := store.RoomOptions{ShowNames: c.FormValue("names") == "1"}
	o.Countdown, _ = strconv.Atoi(c.FormValue("countdown"))
	if !validCountdown(o.Countdown) {
		return echo.NewHTTPError(http.StatusBadRequest, "The countdown must be one of 0 (none), 15, 30, 60 or 120 seconds.")
	}
	if err := s.rooms.SetRoomOptions(c.Request().Context(), r.ID, o); err != nil {
		return err
	}
	if err := s.fanout.Notify(c.Request().Context(), r.ID); err != nil {
		return err
	}
	return s.roomDone(c, paths.PresentPathOf(r.Page)+"?"+url.Values{"room": {r.ID}}.Encode())
}

func validCountdown(n int) bool {
	for _, c := range views.Countdowns { // 0, the default, is none: the reveal closes the answers
		if n == c {
			return true
		}
	}
	return false
}

// roomDone answers a presenter's control: 204 to present.js, a redirect
// to target for a plain form.
func (s *Server) roomDone(c echo.Context, target string) error {
	if c.Request().Header.Get("X-Requested-With") != "" {
		return c.NoContent(http.StatusNoContent)
	}
	return seeOther(c, target)
}

// handleRoomHandover makes a one-time code that hands the room to another
// browser (the laptop plugged into the projector, say) and shows it to
// the presenter. Only its hash is kept; a new code replaces the last.
func (s *Server) handleRoomHandover(c echo.Context) error {
	r, err := s.presenterRoom(c)
	if err != nil {
		return err
	}
	code := randomCode() + randomCode()[:2]
	if err := s.rooms.OfferHandover(c.Request().Context(), r.ID, hashSecret(code)); err != nil {
		return err
	}
	take := paths.RoomTakePath(r.ID)
	p := views.HandoverPage{Title: r.Title, Code: code, TakeURL: s.absURL(c, take),
		Back: paths.PresentPathOf(r.Page) + "?" + url.Values{"room": {r.ID}}.Encode()}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	if c.Request().Header.Get("X-Requested-With") != "" {
		return writeJSON(c, http.StatusOK, map[string]string{"code": code, "url": p.TakeURL})
	}
	return render(c, http.StatusOK, views.RoomHandover(p))
}

// handleRoomTakePage asks the other browser for the hand-over code. It
// spends nothing: a link preview fetching it takes no room.
func (s *Server) handleRoomTakePage(c echo.Context) error {
	r, err := s.roomByID(c)
	if err != nil {
		return err
	}
	if !time.Now().Before(r.ExpiresAt) {
		return errRoomEnded
	}
	return render(c, http.StatusOK, views.RoomTake(views.TakePage{Title: r.Title, Action: paths.RoomTakePath(r.ID)}))
}

// handleRoomTake spends a hand-over code: this browser gets a new secret
// and drives the room; the browser that had it can no longer.
func (s *Server) handleRoomTake(c echo.Context) error {
	r, err := s.roomByID(c)
	if err != nil {
		return err
	}
	if !time.Now().Before(r.ExpiresAt) {
		return errRoomEnded
	}
	// A wrong hand-over code costs a miss, as a wrong room code does, so
	// that guessing one is refused long before it could succeed.
	if over := s.budgets.joinSpent(clientKey(c)); over != nil {
		return s.refuse(c, over)
	}
	if over := s.networks.joinSpent(networkKey(c)); over != nil {
		return s.refuse(c, over)
	}
	code := normalCode(c.FormValue("code"))
	secret := randomString(32)
	err = s.rooms.TakeHandover(c.Request().Context(), r.ID, hashSecret(code), hashSecret(secret))
	if errors.Is(err, store.ErrNoHandover) {
		s.budgets.takeMiss(clientKey(c))
		s.networks.takeMiss(networkKey(c))
		p := views.TakePage{Title: r.Title, Action: paths.RoomTakePath(r.ID), Error: "This code is wrong or " +
			"was used already. Ask the presenter for a new one."}
		return render(c, http.StatusForbidden, views.RoomTake(p))
	}
	if err != nil {
		return err
	}
	s.setPresenterCookie(c, r, secret)
	return seeOther(c, paths.PresentPathOf(r.Page)+"?"+url.Values{"room": {r.ID}}.Encode())
}

// setPresenterCookie gives this browser the room's secret, sent only to the room's own paths.
func (s *Server) setPresenterCookie(c echo.Context, r store.Room, secret string) {
	c.SetCookie(&http.Cookie{Name: presenterCookie(r.ID), Value: secret, Path: paths.RoomPath(r.ID),
		HttpOnly: true, Secure: s.secure(c), SameSite: http.SameSiteStrictMode, MaxAge: int(time.Until(r.ExpiresAt).Seconds()) + 7*24*3600})
}

// isPresenter reports whether the request carries room r's secret, ended or not:
// the presenter keeps the names and the export after class.
func isPresenter(c echo.Context, r store.Room) bool {
	ck, err := c.Cookie(presenterCookie(r.ID))
	return err == nil && subtle.ConstantTimeCompare([]byte(hashSecret(ck.Value)), []byte(r.SecretHash)) == 1
}
