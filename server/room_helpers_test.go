package server_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"fencelab/server"
)

// startRoomServer serves the lab with live rooms on a loopback port and
// returns its base URL.
func startRoomServer(t testing.TB, rc server.RoomConfig) string {
	t.Helper()
	db := openDB(t, t.TempDir())
	s, err := server.New(server.Config{
		Store: db, Library: testLibrary(t), Secret: testSecret,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Rooms:  db, Room: rc,
	})
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); ts.Close() })
	return ts.URL
}

// client is a browser without a page: its own cookies, no redirects followed.
func client(t testing.TB) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func send(t testing.TB, c *http.Client, method, target string, form url.Values, header ...string) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

var codeRE = regexp.MustCompile(`class="room-join-code">([A-Z0-9]+)<`)

// startRoom starts a live room on paused-worker as presenter does and
// returns the room's id and code.
func startRoom(t testing.TB, base string, presenter *http.Client) (id, code string) {
	t.Helper()
	res, _ := send(t, presenter, http.MethodPost, base+"/rooms",
		url.Values{"page": {"/scenarios/paused-worker"}, "p": {"unfenced", "fenced"}, "d": {"fenced"}})
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/scenarios/paused-worker/present?room=") {
		t.Fatalf("POST /rooms = %d, Location %q; want 303 to the presentation with its room", res.StatusCode, loc)
	}
	id = strings.TrimPrefix(loc, "/scenarios/paused-worker/present?room=")
	_, body := send(t, presenter, http.MethodGet, base+loc, nil)
	m := codeRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("GET %s: no room code on the presenter's screen", loc)
	}
	return id, m[1]
}

// roomMessage is one server-sent event of a room.
type roomMessage struct{ name, data string }

// stream opens a server-sent event stream and returns its events; it is
// closed when the test ends or cancel is called.
func stream(t testing.TB, c *http.Client, target string) (<-chan roomMessage, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	res, err := c.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("GET %s: %v", target, err)
	}
	if ct := res.Header.Get("Content-Type"); res.StatusCode != http.StatusOK || ct != "text/event-stream" {
		cancel()
		res.Body.Close()
		t.Fatalf("GET %s = %d %s, want 200 text/event-stream", target, res.StatusCode, ct)
	}
	out := make(chan roomMessage, 64)
	go func() {
		defer close(out)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		var ev roomMessage
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = strings.TrimPrefix(line, "data: ")
			case line == "" && ev.name != "":
				out <- ev
				ev = roomMessage{}
			}
		}
	}()
	t.Cleanup(cancel)
	return out, cancel
}

// next waits for the next event named name whose data holds every want.
func next(t testing.TB, events <-chan roomMessage, name string, want ...string) roomMessage {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("stream closed waiting for %s %q", name, want)
			}
			if ev.name != name {
				continue
			}
			all := true
			for _, w := range want {
				all = all && strings.Contains(ev.data, w)
			}
			if all {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %s event with %q within 5 s", name, want)
		}
	}
}
