package main

import (
	"bufio"
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"fencelab/views/paths"
)

// testRoomAcrossServers runs a live room whose presenter is on server a
// and whose student is on server b: the student joins with the code, sees
// the presenter's step, answers, and the presenter's board counts it.
func testRoomAcrossServers(t *testing.T, a, b string) {
	presenter, student := browser(t), browser(t)
	res := post(t, presenter, a+"/rooms", url.Values{"page": {"/scenarios/paused-worker"}, "p": {"unfenced", "fenced"}, "d": {"fenced"}})
	loc := res.Header.Get("Location")
	id, ok := strings.CutPrefix(loc, "/scenarios/paused-worker/present?room=")
	if res.StatusCode != http.StatusSeeOther || !ok {
		t.Fatalf("POST /rooms on server a = %d, Location %q; want 303 to the presentation", res.StatusCode, loc)
	}
	screen := readBody(t, presenter, a+loc)
	m := regexp.MustCompile(`class="room-join-code">([A-Z0-9]+)<`).FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("GET %s on server a: no room code on the presenter's screen", loc)
	}
	code := m[1]

	phone := events(t, student, b+paths.JoinEventsPath(code))
	waitEvent(t, phone, `"step":1`, "the student's phone on server b, at the start")
	board := events(t, presenter, a+paths.RoomEventsPath(id))
	if res := post(t, presenter, a+paths.RoomStepPath(id), url.Values{"step": {"8"}}); res.StatusCode != http.StatusNoContent {
		t.Fatalf("the presenter's step 8 on server a = %d, want 204", res.StatusCode)
	}
	waitEvent(t, phone, `"step":8`, "the student's phone on server b, after the presenter's step on a")
	res = post(t, student, b+paths.JoinAnswerPath(code), url.Values{"step": {"8"}, "guess": {"rejected"}, "name": {"Ada"}})
	if res.StatusCode != http.StatusOK {
		t.Fatalf("the student's answer on server b = %d, want 200", res.StatusCode)
	}
	waitEvent(t, board, `"answers":1`, "the presenter's board on server a, after the answer on b")
}

func browser(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func post(t *testing.T, c *http.Client, target string, form url.Values) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Requested-With", "test")
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", target, err)
	}
	res.Body.Close()
	return res
}

func readBody(t *testing.T, c *http.Client, target string) string {
	t.Helper()
	res, err := c.Get(target)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	defer res.Body.Close()
	var b strings.Builder
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		b.WriteString(sc.Text() + "\n")
	}
	return b.String()
}

// events streams the data lines of a server-sent event stream until the
// end of the test.
func events(t *testing.T, c *http.Client, target string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	res, err := c.Do(req)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %v %v", target, res, err)
	}
	out := make(chan string, 64)
	go func() {
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				out <- data
			}
		}
	}()
	return out
}

func waitEvent(t *testing.T, feed <-chan string, want, what string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case data := <-feed:
			if strings.Contains(data, want) {
				return
			}
		case <-deadline:
			t.Fatalf("%s: no event with %s within 10 s", what, want)
		}
	}
}
