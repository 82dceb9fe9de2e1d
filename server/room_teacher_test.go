package server_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"fencelab/server"
	"fencelab/views/paths"
)

// TestRoomTeacher runs a room as a teacher would: a question skipped
// closes on the phones, a countdown, names turned on, the CSV export, a
// hand-over to another browser, and the end, which closes every stream.
func TestRoomTeacher(t *testing.T) {
	t.Parallel()
	base := startRoomServer(t, server.RoomConfig{})
	presenter := client(t)
	id, code := startRoom(t, base, presenter)
	ada, bo := client(t), client(t)
	adaFeed, _ := stream(t, ada, base+paths.JoinEventsPath(code))
	boFeed, _ := stream(t, bo, base+paths.JoinEventsPath(code))
	board, _ := stream(t, presenter, base+paths.RoomEventsPath(id))
	next(t, board, "room", `"students":2`)
	ctl := func(c *http.Client, path string, form url.Values) int {
		res, _ := send(t, c, http.MethodPost, base+path, form, "X-Requested-With", "test")
		return res.StatusCode
	}
	answer := func(c *http.Client, step, guess, name string) (int, string) {
		res, body := send(t, c, http.MethodPost, base+paths.JoinAnswerPath(code),
			url.Values{"step": {step}, "guess": {guess}, "name": {name}}, "X-Requested-With", "test")
		return res.StatusCode, body
	}

	if got := ctl(presenter, paths.RoomOptionsPath(id), url.Values{"names": {"1"}, "countdown": {"30"}}); got != http.StatusNoContent {
		t.Fatalf("POST options = %d, want 204", got)
	}
	if got := ctl(presenter, paths.RoomOptionsPath(id), url.Values{"countdown": {"7"}}); got != http.StatusBadRequest {
		t.Errorf("POST options with a countdown of 7 s = %d, want 400", got)
	}
	before := time.Now().Truncate(time.Second)
	ctl(presenter, paths.RoomStepPath(id), url.Values{"step": {"8"}})
	s := decodeRoom(t, next(t, adaFeed, "room", `"step":8`))
	if s.Question == nil || s.Question.ClosesAt < before.Add(30*time.Second).UnixMilli() || s.Question.ClosesAt > time.Now().Add(31*time.Second).UnixMilli() {
		t.Errorf("step 8 with a 30 s countdown: question %+v, want it to close 30 s after it opened", s.Question)
	}
	if status, body := answer(ada, "8", "rejected", "Ada"); status != http.StatusOK {
		t.Fatalf("Ada's answer = %d %s", status, body)
	}

	// The class moves on (back, here: step 8 is the last) without the
	// reveal: the question closes on the phones, and a late answer is refused.
	ctl(presenter, paths.RoomStepPath(id), url.Values{"step": {"7"}})
	if s := decodeRoom(t, next(t, boFeed, "room", `"step":7`)); len(s.Skipped) != 1 || s.Skipped[0] != 8 {
		t.Errorf("phone at step 7 after leaving 8 unrevealed: skipped = %v, want [8]", s.Skipped)
	}
	if status, body := answer(bo, "8", "accepted", "Bo"); status != http.StatusConflict || !strings.Contains(body, "moved") {
		t.Errorf("an answer to a question the class moved on from = %d %s, want 409 moved", status, body)
	}
	if _, page := send(t, bo, http.MethodGet, base+paths.JoinPath(code), nil); !strings.Contains(page, "The class moved on") {
		t.Errorf("Bo's page without JavaScript after the class moved on does not say so")
	}

	testExport(t, base, id, presenter, ada)
	taker := testHandover(t, base, id, presenter)

	// The end: every stream gets the final screen and is closed by the server.
	if got := ctl(taker, paths.RoomEndPath(id), nil); got != http.StatusNoContent {
		t.Fatalf("POST end = %d, want 204", got)
	}
	for name, feed := range map[string]<-chan roomMessage{"Ada": adaFeed, "Bo": boFeed, "the presenter": board} {
		if ev := next(t, feed, "gone"); !strings.Contains(ev.data, "ended") {
			t.Errorf("%s's last event = %q, want the room ended", name, ev.data)
		}
		waitClosed(t, name, feed)
	}
	// After class, the shareable summary shows every question, with the
	// names turned on.
	if _, shared := send(t, client(t), http.MethodGet, base+paths.RoomPath(id), nil); !strings.Contains(shared, "Ada") ||
		!strings.Contains(shared, "not revealed in class") {
		t.Errorf("the shareable summary after the end, names turned on, lacks Ada or the unrevealed question")
	}
	again, _ := stream(t, ada, base+paths.JoinEventsPath(code))
	next(t, again, "gone")
	waitClosed(t, "a phone reconnecting", again)
	if res, _ := send(t, client(t), http.MethodGet, base+paths.JoinPath(code), nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET /join/%s after the end = %d, want 404", code, res.StatusCode)
	}
}

// waitClosed fails unless the server closes the stream within 5 s.
func waitClosed(t *testing.T, name string, feed <-chan roomMessage) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-feed:
			if !ok {
				return
			}
		case <-deadline:
			t.Errorf("%s's stream is still open 5 s after the room ended", name)
			return
		}
	}
}

// testExport: while the room runs, the shareable summary holds no
// unrevealed question, the presenter's does; the CSV is the presenter's
// alone, one row per student.
func testExport(t *testing.T, base, id string, presenter, student *http.Client) {
	t.Helper()
	// While the room runs, others see only the questions revealed in
	// class: step 8 was not, so neither it nor Ada's answer to it.
	if _, shared := send(t, client(t), http.MethodGet, base+paths.RoomPath(id), nil); strings.Contains(shared, "Ada") ||
		strings.Contains(shared, "right answer") {
		t.Errorf("the shareable summary of the live room shows its unrevealed question")
	}
	if _, own := send(t, presenter, http.MethodGet, base+paths.RoomPath(id), nil); !strings.Contains(own, "Ada") {
		t.Errorf("the presenter's summary of the live room lacks Ada")
	}
	if res, _ := send(t, student, http.MethodGet, base+paths.RoomCSVPath(id), nil); res.StatusCode != http.StatusForbidden {
		t.Errorf("a student's GET of the CSV = %d, want 403", res.StatusCode)
	}
	res, body := send(t, presenter, http.MethodGet, base+paths.RoomCSVPath(id), nil)
	want := "\ufeffstudent,step 8,right,answered,questions\r\nAda,right,1,1,1\r\n"
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") || body != want {
		t.Errorf("the presenter's CSV = %d %s %q, want 200 text/csv %q", res.StatusCode, res.Header.Get("Content-Type"), body, want)
	}
}

// testHandover hands the room to another browser with a one-time code
// and returns that browser.
func testHandover(t *testing.T, base, id string, presenter *http.Client) *http.Client {
	t.Helper()
	res, body := send(t, presenter, http.MethodPost, base+paths.RoomHandoverPath(id), nil, "X-Requested-With", "test")
	var offer struct{ Code, URL string }
	if err := json.Unmarshal([]byte(body), &offer); res.StatusCode != http.StatusOK || err != nil || len(offer.Code) != 8 ||
		!strings.HasSuffix(offer.URL, paths.RoomTakePath(id)) {
		t.Fatalf("POST handover = %d %s, want 200 with an 8-letter code and the take link", res.StatusCode, body)
	}
	taker := client(t)
	if res, _ := send(t, taker, http.MethodGet, base+paths.RoomTakePath(id), nil); res.StatusCode != http.StatusOK {
		t.Errorf("GET take = %d, want 200", res.StatusCode)
	}
	if res, _ := send(t, taker, http.MethodPost, base+paths.RoomTakePath(id), url.Values{"code": {"WRONG123"}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("POST take with a wrong code = %d, want 403", res.StatusCode)
	}
	spaced := strings.ToLower(offer.Code[:4] + "-" + offer.Code[4:])
	if res, _ := send(t, taker, http.MethodPost, base+paths.RoomTakePath(id), url.Values{"code": {spaced}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST take with the code as read out (%q) = %d, want 303", spaced, res.StatusCode)
	}
	if res, _ := send(t, client(t), http.MethodPost, base+paths.RoomTakePath(id), url.Values{"code": {offer.Code}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("POST take with a spent code = %d, want 403", res.StatusCode)
	}
	for _, c := range []struct {
		who    string
		c      *http.Client
		status int
	}{{"the new browser", taker, http.StatusNoContent}, {"the old browser", presenter, http.StatusForbidden}} {
		if res, _ := send(t, c.c, http.MethodPost, base+paths.RoomStepPath(id), url.Values{"step": {"6"}}, "X-Requested-With", "test"); res.StatusCode != c.status {
			t.Errorf("%s moves the room after the hand-over: %d, want %d", c.who, res.StatusCode, c.status)
		}
	}
	return taker
}
