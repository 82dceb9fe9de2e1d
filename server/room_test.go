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

// roomState is the data of a room event, as the tests read it.
type roomState struct {
	Step        int   `json:"step"`
	Students    int   `json:"students"`
	Connections int   `json:"connections"`
	Skipped     []int `json:"skipped"`
	Question    *struct {
		Step     int            `json:"step"`
		Open     bool           `json:"open"`
		ClosesAt int64          `json:"closesAt"`
		Answers  int            `json:"answers"`
		Of       int            `json:"of"`
		Revealed bool           `json:"revealed"`
		Answer   string         `json:"answer"`
		Reveal   string         `json:"reveal"`
		Split    map[string]int `json:"split"`
	} `json:"question"`
}

func decodeRoom(t *testing.T, ev roomMessage) roomState {
	t.Helper()
	var s roomState
	if err := json.Unmarshal([]byte(ev.data), &s); err != nil {
		t.Fatalf("room event %q: %v", ev.data, err)
	}
	return s
}

// TestRoom runs a class of three through step 8 of paused-worker: the
// phones follow the presenter, answer once each, and see the answer at
// the reveal; a phone cannot move the room; the summary counts it all.
func TestRoom(t *testing.T) {
	t.Parallel()
	base := startRoomServer(t, server.RoomConfig{})
	presenter := client(t)
	id, code := startRoom(t, base, presenter)
	if !strings.HasPrefix(code, "") || len(code) != 6 {
		t.Fatalf("room code = %q, want 6 characters", code)
	}
	_, screen := send(t, presenter, http.MethodGet, base+"/scenarios/paused-worker/present?room="+id, nil)
	if !strings.Contains(screen, `class="room-qr"`) || !strings.Contains(screen, "<path fill=\"#000\" d=\"M") {
		t.Errorf("the presenter's screen has no QR code")
	}

	// Before any phone: the counts are there, and zero.
	board, _ := stream(t, presenter, base+paths.RoomEventsPath(id))
	if ev := next(t, board, "room"); !strings.Contains(ev.data, `"students":0`) || !strings.Contains(ev.data, `"connections":0`) {
		t.Errorf("the presenter's first event = %s, want students 0 and connections 0", ev.data)
	}

	students := []*http.Client{client(t), client(t), client(t)}
	var feeds []<-chan roomMessage
	for i, st := range students {
		res, body := send(t, st, http.MethodGet, base+paths.JoinPath(strings.ToLower(code)), nil)
		if res.StatusCode != http.StatusOK || !strings.Contains(body, "The lease ended before") {
			t.Fatalf("student %d: GET /join/%s = %d", i, code, res.StatusCode)
		}
		feed, _ := stream(t, st, base+paths.JoinEventsPath(code))
		if s := decodeRoom(t, next(t, feed, "room")); s.Step != 1 {
			t.Errorf("student %d: first event at step %d, want 1", i, s.Step)
		}
		feeds = append(feeds, feed)
	}
	// A second tab of one student is a connection, not a student.
	stream(t, students[0], base+paths.JoinEventsPath(code))
	if s := decodeRoom(t, next(t, board, "room", `"connections":4`)); s.Students != 3 {
		t.Errorf("presenter with 3 students in 4 tabs: students = %d, want 3", s.Students)
	}

	// A phone cannot move the room, even with the room's id.
	res, _ := send(t, students[0], http.MethodPost, base+paths.RoomStepPath(id), url.Values{"step": {"5"}})
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("a student's POST /rooms/%s/step = %d, want 403", id, res.StatusCode)
	}
	if res, _ := send(t, presenter, http.MethodPost, base+paths.RoomStepPath(id), url.Values{"step": {"8"}}); res.StatusCode != http.StatusNoContent {
		t.Fatalf("presenter's step 8 = %d, want 204", res.StatusCode)
	}
	for i, feed := range feeds {
		s := decodeRoom(t, next(t, feed, "room", `"step":8`))
		if s.Question == nil || !s.Question.Open || s.Question.Step != 8 || s.Question.Answer != "" {
			t.Errorf("student %d at step 8: question %+v, want open, unanswered, answer hidden", i, s.Question)
		}
	}

	if s := decodeRoom(t, next(t, board, "room", `"step":8`)); s.Question == nil || s.Question.Answers != 0 || s.Question.Of != 3 {
		t.Errorf("presenter at step 8 before any answer: %+v, want 0 answers of 3", s.Question)
	}

	answer := func(st *http.Client, guess, name string) (int, string) {
		res, body := send(t, st, http.MethodPost, base+paths.JoinAnswerPath(code),
			url.Values{"step": {"8"}, "guess": {guess}, "name": {name}}, "X-Requested-With", "test")
		return res.StatusCode, body
	}
	for i, g := range []struct{ guess, name string }{{"rejected", "Ada"}, {"rejected", ""}, {"accepted", "<b>Bob</b>"}} {
		if status, body := answer(students[i], g.guess, g.name); status != http.StatusOK {
			t.Errorf("student %d answers %s = %d %s, want 200", i, g.guess, status, body)
		}
	}
	if status, body := answer(students[0], "accepted", "Ada"); status != http.StatusConflict || !strings.Contains(body, "answered") {
		t.Errorf("a second answer = %d %s, want 409 answered", status, body)
	}
	next(t, board, "room", `"answers":3,"of":3`)

	if res, _ := send(t, presenter, http.MethodPost, base+paths.RoomRevealPath(id), url.Values{"step": {"8"}}); res.StatusCode != http.StatusNoContent {
		t.Fatalf("reveal = %d, want 204", res.StatusCode)
	}
	s := decodeRoom(t, next(t, board, "room", `"revealed":true`))
	if sp := s.Question.Split; s.Question.Answer != "rejected" || sp["rejected"] != 2 || sp["accepted"] != 1 ||
		sp["rejectedPercent"] != 67 || sp["acceptedPercent"] != 33 {
		t.Errorf("presenter at the reveal: %+v, want rejected, split 2 (67%%) rejected 1 (33%%) accepted", *s.Question)
	}
	for i, feed := range feeds {
		s := decodeRoom(t, next(t, feed, "room", `"revealed":true`))
		if s.Question.Answer != "rejected" || !strings.HasPrefix(s.Question.Reveal, "Rejected, because") {
			t.Errorf("student %d at the reveal: %+v", i, *s.Question)
		}
	}
	late := client(t) // a student the server has set a cookie for, who did not answer in time
	if res, _ := send(t, late, http.MethodGet, base+paths.JoinPath(code), nil); res.StatusCode != http.StatusOK {
		t.Fatalf("a late student's GET of the room = %d, want 200", res.StatusCode)
	}
	if status, body := answer(late, "accepted", ""); status != http.StatusConflict || !strings.Contains(body, "closed") {
		t.Errorf("an answer after the reveal = %d %s, want 409 closed", status, body)
	}

	// A phone that reconnects gets the room as it is, at once.
	again, _ := stream(t, students[1], base+paths.JoinEventsPath(code))
	if s := decodeRoom(t, next(t, again, "room")); s.Step != 8 || s.Question == nil || !s.Question.Revealed {
		t.Errorf("a reconnecting phone first got %+v, want step 8 revealed", s)
	}
	// Without JavaScript, the page says who was right.
	_, page := send(t, students[0], http.MethodGet, base+paths.JoinPath(code), nil)
	if !strings.Contains(page, "✓ You were right.") {
		t.Errorf("student 0's page after the reveal does not say they were right")
	}
	// A phone shows the room only: no site header or footer to tap out of it.
	if strings.Contains(page, `class="site-header"`) || strings.Contains(page, `class="site-footer"`) {
		t.Errorf("student 0's page shows the site's header or footer, a way out of the room in one tap")
	}

	testSummaries(t, base, id, presenter)
}

// testSummaries reads room id's summary as the presenter and as anyone
// with the link: the split in counts and percents with the right answer
// marked in words, the students one by one, and the names only in the
// presenter's view.
func testSummaries(t *testing.T, base, id string, presenter *http.Client) {
	t.Helper()
	both := []string{"2</strong> right, <strong>1</strong> wrong", "<strong>2</strong> (67%)", "<strong>1</strong> (33%)",
		`<span aria-hidden="true">✓</span> right answer`, "Each student", "1 of 1"}
	res, shared := send(t, client(t), http.MethodGet, base+paths.RoomPath(id), nil)
	if cc, vary := res.Header.Get("Cache-Control"), res.Header.Values("Vary"); !strings.HasPrefix(cc, "private") || !strings.Contains(strings.Join(vary, ","), "Cookie") {
		t.Errorf("the summary's Cache-Control %q, Vary %q; want private, varying by Cookie", cc, vary)
	}
	_, own := send(t, presenter, http.MethodGet, base+paths.RoomPath(id), nil)
	for _, want := range append(both, "Student 1", "Student 2", "Students are not named here") {
		if !strings.Contains(shared, want) {
			t.Errorf("the shareable summary lacks %q", want)
		}
	}
	for _, never := range []string{"Ada", "Bob", "CSV"} {
		if strings.Contains(shared, never) {
			t.Errorf("the shareable summary shows %q, want no names and no export", never)
		}
	}
	for _, want := range append(both, "Ada", "&lt;b&gt;Bob&lt;/b&gt;", paths.RoomCSVPath(id)) {
		if !strings.Contains(own, want) {
			t.Errorf("the presenter's summary lacks %q", want)
		}
	}
}

// TestRoomRefusals: unknown codes, a full room, an ended room.
func TestRoomRefusals(t *testing.T) {
	t.Parallel()
	// Times are kept to the second: a room of 2 s lives between 1 and 2 s.
	base := startRoomServer(t, server.RoomConfig{MaxPhones: 1, TTL: 2 * time.Second})
	presenter := client(t)
	id, code := startRoom(t, base, presenter)

	if res, body := send(t, client(t), http.MethodGet, base+"/join/NOSUCH", nil); res.StatusCode != http.StatusNotFound || !strings.Contains(body, "no live room with this code") {
		t.Errorf("GET /join/NOSUCH = %d, want 404 with a message", res.StatusCode)
	}
	stream(t, client(t), base+paths.JoinEventsPath(code))
	full, _ := stream(t, client(t), base+paths.JoinEventsPath(code))
	if ev := next(t, full, "full"); !strings.Contains(ev.data, "This room is full") {
		t.Errorf("the second phone of a room of one got %q", ev.data)
	}
	if testing.Short() {
		return
	}
	time.Sleep(3100 * time.Millisecond)
	if res, _ := send(t, client(t), http.MethodGet, base+paths.JoinPath(code), nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET /join/%s after the room ended = %d, want 404", code, res.StatusCode)
	}
	if res, _ := send(t, presenter, http.MethodPost, base+paths.RoomStepPath(id), url.Values{"step": {"2"}}); res.StatusCode != http.StatusGone {
		t.Errorf("a step after the room ended = %d, want 410", res.StatusCode)
	}
	if res, _ := send(t, client(t), http.MethodGet, base+paths.RoomPath(id), nil); res.StatusCode != http.StatusOK {
		t.Errorf("the summary after the room ended = %d, want 200", res.StatusCode)
	}
}
