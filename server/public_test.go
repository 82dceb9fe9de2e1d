package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"fencelab/server"
	"fencelab/server/store"
	"fencelab/server/store/sqlite"
	"fencelab/views/paths"
)

// The attacks of a public lab on its rooms, budgets and disk, made
// again: each test names the attack it repeats.

// publicServer serves cfg (its store, rooms and library filled in) on a
// loopback port, and returns its base URL and database.
func publicServer(t testing.TB, cfg server.Config) (string, *sqlite.DB) {
	t.Helper()
	db := openDB(t, t.TempDir())
	secret, err := db.Secret(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store, cfg.Rooms, cfg.Library, cfg.Secret = db, db, testLibrary(t), secret
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.Limits.RefusalDelay == 0 {
		cfg.Limits.RefusalDelay = -1
	}
	s, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); ts.Close() })
	return ts.URL, db
}

// answerAs posts a guess at step 8 from c, as room.js does.
func answerAs(t testing.TB, c *http.Client, base, code string) (int, string) {
	res, body := send(t, c, http.MethodPost, base+paths.JoinAnswerPath(code),
		url.Values{"step": {"8"}, "guess": {"accepted"}}, "X-Requested-With", "test")
	return res.StatusCode, body
}

// TestStudentIsACookieTheServerSet: an answer without a student cookie,
// or with one the client made up, is refused and counts for nobody; each
// student answers a question once. (Attack F5: each cookie-less answer
// counted as a new student, 104k answers in 30 s.)
func TestStudentIsACookieTheServerSet(t *testing.T) {
	t.Parallel()
	base, _ := publicServer(t, server.Config{})
	presenter := client(t)
	id, code := startRoom(t, base, presenter)
	if res, _ := send(t, presenter, http.MethodPost, base+paths.RoomStepPath(id), url.Values{"step": {"8"}}); res.StatusCode != http.StatusNoContent {
		t.Fatalf("step 8 = %d", res.StatusCode)
	}
	if status, body := answerAs(t, client(t), base, code); status != http.StatusForbidden || !strings.Contains(body, "open the room") {
		t.Errorf("an answer without a student cookie = %d %.200s, want 403", status, body)
	}
	forged := client(t)
	u, _ := url.Parse(base + paths.RouteJoinForm)
	forged.Jar.SetCookies(u, []*http.Cookie{{Name: "fencelab_student", Value: "aaaaaaaaaaaaaaaaaaaaaa.bbbbbbbbbbbb"}})
	if status, _ := answerAs(t, forged, base, code); status != http.StatusForbidden {
		t.Errorf("an answer with a made-up student cookie = %d, want 403", status)
	}
	st := client(t)
	send(t, st, http.MethodGet, base+paths.JoinPath(code), nil)
	if status, body := answerAs(t, st, base, code); status != http.StatusOK {
		t.Fatalf("a student's answer = %d %s, want 200", status, body)
	}
	if status, _ := answerAs(t, st, base, code); status != http.StatusConflict {
		t.Errorf("the same student's second answer = %d, want 409", status)
	}
	_, board := send(t, presenter, http.MethodGet, base+paths.RoomPath(id), nil)
	if !strings.Contains(board, "1 of 1") && !strings.Contains(board, ">1<") {
		t.Logf("summary: %.300s", board)
	}
}

// TestAnswersHaveABudget: one client's answers are rate-limited: past
// its burst, 429 with Retry-After, and nothing is stored. (Attack F5.)
func TestAnswersHaveABudget(t *testing.T) {
	t.Parallel()
	base, db := publicServer(t, server.Config{Limits: server.Limits{Answers: 3, AnswersPerHour: 1}})
	presenter := client(t)
	id, code := startRoom(t, base, presenter)
	send(t, presenter, http.MethodPost, base+paths.RoomStepPath(id), url.Values{"step": {"8"}})
	var codes []int
	for range 5 {
		st := client(t)
		send(t, st, http.MethodGet, base+paths.JoinPath(code), nil)
		status, _ := answerAs(t, st, base, code)
		codes = append(codes, status)
	}
	want := []int{200, 200, 200, 429, 429}
	if fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Errorf("five students of one address answer: %v, want %v", codes, want)
	}
	answers, err := db.Answers(t.Context(), id, "")
	if err != nil || len(answers) != 3 {
		t.Errorf("answers stored = %d (%v), want 3", len(answers), err)
	}
}

// TestJoinGuessesHaveABudget: wrong room codes cost a client its
// misses; past them even /join/CODE answers 429, so that guessing a live
// room's code takes years (docs/operations.md). A right code costs
// nothing: a class joining at once is never refused.
func TestJoinGuessesHaveABudget(t *testing.T) {
	t.Parallel()
	base, _ := publicServer(t, server.Config{Limits: server.Limits{JoinMisses: 3, JoinMissesPerHour: 1}})
	presenter := client(t)
	_, code := startRoom(t, base, presenter)
	guesser := client(t)
	for i := range 10 { // right codes first: free
		if res, _ := send(t, guesser, http.MethodGet, base+paths.JoinPath(code), nil); res.StatusCode != http.StatusOK {
			t.Fatalf("join %d with the right code = %d, want 200", i, res.StatusCode)
		}
	}
	var codes []int
	for i := range 5 {
		res, _ := send(t, guesser, http.MethodGet, base+paths.JoinPath(fmt.Sprintf("ZZZZ%02d", i)), nil)
		codes = append(codes, res.StatusCode)
	}
	if want := []int{404, 404, 404, 429, 429}; fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Errorf("five wrong codes: %v, want %v", codes, want)
	}
	if res, _ := send(t, guesser, http.MethodGet, base+paths.JoinEventsPath(code), nil); res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a guesser past its misses: events of a live room = %d, want 429", res.StatusCode)
	}
}

// TestHandoverGuessesHaveABudget: wrong hand-over codes cost the misses
// wrong room codes do; past them, 429, the right code included. (The take
// form had no budget: a guesser could try codes as fast as it could send.)
func TestHandoverGuessesHaveABudget(t *testing.T) {
	t.Parallel()
	base, _ := publicServer(t, server.Config{Limits: server.Limits{JoinMisses: 3, JoinMissesPerHour: 1}})
	presenter := client(t)
	id, _ := startRoom(t, base, presenter)
	res, body := send(t, presenter, http.MethodPost, base+paths.RoomHandoverPath(id), nil, "X-Requested-With", "test")
	var offer struct{ Code string }
	if err := json.Unmarshal([]byte(body), &offer); res.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("POST handover = %d %s", res.StatusCode, body)
	}
	guesser := client(t)
	var codes []int
	for i := range 5 {
		res, _ := send(t, guesser, http.MethodPost, base+paths.RoomTakePath(id), url.Values{"code": {fmt.Sprintf("WRONG%03d", i)}})
		codes = append(codes, res.StatusCode)
	}
	if want := []int{403, 403, 403, 429, 429}; fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Errorf("five wrong hand-over codes: %v, want %v", codes, want)
	}
	if res, _ := send(t, guesser, http.MethodPost, base+paths.RoomTakePath(id), url.Values{"code": {offer.Code}}); res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("the right code from a guesser past its misses = %d, want 429", res.StatusCode)
	}
}

// TestPhonePageHoldsNoAnswer: before the reveal, the phone's page holds
// neither the answer nor the sentence that explains it, hidden or not;
// after it, both. (The right answer was in hidden elements.)
func TestPhonePageHoldsNoAnswer(t *testing.T) {
	t.Parallel()
	base, _ := publicServer(t, server.Config{})
	presenter := client(t)
	id, code := startRoom(t, base, presenter)
	send(t, presenter, http.MethodPost, base+paths.RoomStepPath(id), url.Values{"step": {"8"}})
	st := client(t)
	_, page := send(t, st, http.MethodGet, base+paths.JoinPath(code), nil)
	for _, leak := range []string{"data-reveal", `data-answer="rejected"`, `data-answer="accepted"`, "Rejected, because", "Accepted, because"} {
		if strings.Contains(page, leak) {
			t.Errorf("the phone's page before the reveal holds %q", leak)
		}
	}
	// The room's summary, whose address is in the presenter's address bar
	// on the projector: a student finds no answer there either, while the
	// presenter sees the question as it stands.
	if _, summary := send(t, st, http.MethodGet, base+paths.RoomPath(id), nil); strings.Contains(summary, "Rejected, because") ||
		strings.Contains(summary, "right answer") || !strings.Contains(summary, "1 question asked is not shown here") {
		t.Errorf("the live room's summary, read by a student before the reveal, holds the answer or does not say one is withheld")
	}
	if _, summary := send(t, presenter, http.MethodGet, base+paths.RoomPath(id), nil); !strings.Contains(summary, "right answer") {
		t.Errorf("the live room's summary, read by its presenter, lacks the open question")
	}
	if res, _ := send(t, presenter, http.MethodPost, base+paths.RoomRevealPath(id), url.Values{"step": {"8"}}); res.StatusCode != http.StatusNoContent {
		t.Fatalf("reveal = %d", res.StatusCode)
	}
	_, page = send(t, st, http.MethodGet, base+paths.JoinPath(code), nil)
	if !strings.Contains(page, `data-answer="rejected"`) || !strings.Contains(page, "Rejected, because") {
		t.Errorf("the phone's page after the reveal lacks the answer and its reason")
	}
	if _, summary := send(t, st, http.MethodGet, base+paths.RoomPath(id), nil); !strings.Contains(summary, "right answer") {
		t.Errorf("the live room's summary after the reveal lacks the revealed question")
	}
}

// firstEvent is the first event of a stream, whatever its name.
func firstEvent(t testing.TB, events <-chan roomMessage) roomMessage {
	t.Helper()
	select {
	case ev, ok := <-events:
		if !ok {
			t.Fatal("stream closed before its first event")
		}
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no event within 5 s")
	}
	return roomMessage{}
}

// TestOneClientCannotFillARoom: one address holds at most its share of a
// room's phones; the others still join. (One client took all 400.)
func TestOneClientCannotFillARoom(t *testing.T) {
	t.Parallel()
	base, _ := publicServer(t, server.Config{Room: server.RoomConfig{MaxPhones: 4}})
	presenter := client(t)
	_, code := startRoom(t, base, presenter)
	for i := range 3 { // three quarters of 4
		feed, _ := stream(t, client(t), base+paths.JoinEventsPath(code))
		if ev := firstEvent(t, feed); ev.name != "room" {
			t.Fatalf("phone %d from one address: %s %s, want the room", i, ev.name, ev.data)
		}
	}
	feed, _ := stream(t, client(t), base+paths.JoinEventsPath(code))
	if ev := firstEvent(t, feed); ev.name != "full" || !strings.Contains(ev.data, "from your address") {
		t.Errorf("a fourth phone from one address: %s %s, want full", ev.name, ev.data)
	}
}

// TestTakenDownRoomCloses: a room on a run hidden by another process
// closes its open streams with a final event, and new ones get only that
// event; its pages answer 410.
func TestTakenDownRoomCloses(t *testing.T) {
	t.Parallel()
	base, db := publicServer(t, server.Config{Room: server.RoomConfig{Recheck: 50 * time.Millisecond}})
	presenter := client(t)
	req, _ := http.NewRequest(http.MethodPost, base+"/api/runs", strings.NewReader(builtinSource(t, "paused-worker")))
	req.Header.Set("Content-Type", "application/json")
	res, err := presenter.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var saved struct{ ID string }
	json.NewDecoder(res.Body).Decode(&saved)
	res.Body.Close()
	if saved.ID == "" {
		t.Fatalf("save = %d", res.StatusCode)
	}
	res, _ = send(t, presenter, http.MethodPost, base+"/rooms", url.Values{"page": {"/r/" + saved.ID}})
	loc := res.Header.Get("Location")
	_, screen := send(t, presenter, http.MethodGet, base+loc, nil)
	m := codeRE.FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("no room code on %s (%d)", loc, res.StatusCode)
	}
	code := m[1]
	phone := client(t)
	feed, _ := stream(t, phone, base+paths.JoinEventsPath(code))
	next(t, feed, "room")
	if err := db.Hide(context.Background(), saved.ID, "It named a real person.", time.Now()); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, feed, "gone"); ev.name != "gone" {
		t.Errorf("an open phone stream after the takedown: %s, want gone", ev.name)
	}
	again, _ := stream(t, phone, base+paths.JoinEventsPath(code))
	if ev := firstEvent(t, again); ev.name != "gone" {
		t.Errorf("a new phone stream after the takedown: %s %s, want gone", ev.name, ev.data)
	}
	if res, _ := send(t, phone, http.MethodGet, base+paths.JoinPath(code), nil); res.StatusCode != http.StatusGone {
		t.Errorf("the phone's page after the takedown = %d, want 410", res.StatusCode)
	}
}

// TestHTTPSBaseURL: behind a TLS proxy (an https --base-url, plain HTTP
// to the server), cookies are Secure and HSTS is sent; without it, not.
func TestHTTPSBaseURL(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		base   string
		secure bool
	}{{"https://fencelab.example", true}, {"http://fencelab.example", false}, {"", false}} {
		b, _ := publicServer(t, server.Config{BaseURL: tt.base})
		st := client(t)
		presenter := client(t)
		_, code := startRoom(t, b, presenter)
		res, _ := send(t, st, http.MethodGet, b+paths.JoinPath(code), nil)
		if hsts := res.Header.Get("Strict-Transport-Security"); (hsts != "") != tt.secure {
			t.Errorf("base %q: Strict-Transport-Security = %q", tt.base, hsts)
		}
		cookies := res.Cookies()
		if len(cookies) == 0 {
			t.Fatalf("base %q: the phone's page set no cookie", tt.base)
		}
		for _, ck := range cookies {
			if ck.Secure != tt.secure {
				t.Errorf("base %q: cookie %s Secure = %v", tt.base, ck.Name, ck.Secure)
			}
		}
		res, _ = send(t, client(t), http.MethodPost, b+"/rooms", url.Values{"page": {"/scenarios/paused-worker"}})
		for _, ck := range res.Cookies() {
			if ck.Secure != tt.secure {
				t.Errorf("base %q: presenter's cookie %s Secure = %v", tt.base, ck.Name, ck.Secure)
			}
		}
	}
}

// diskFullStore saves nothing: its disk is full.
type diskFullStore struct{ *sqlite.DB }

func (diskFullStore) SaveRun(context.Context, store.Run) (store.Run, error) {
	return store.Run{}, fmt.Errorf("save run: %w: database or disk is full (test)", store.ErrFull)
}

// TestFullDisk: on a full disk every save answers 507, the log has one
// line a minute for them all, and /readyz says not ready. (Attack F5:
// 500s and 53 MB of ERROR lines in 20 s.)
func TestFullDisk(t *testing.T) {
	t.Parallel()
	db := openDB(t, t.TempDir())
	var log bytes.Buffer
	srv, err := server.New(server.Config{Store: diskFullStore{db}, Takedowns: db, Library: testLibrary(t), Secret: testSecret,
		Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if rec := plainGet(srv, "/readyz"); rec.Code != http.StatusOK {
		t.Fatalf("/readyz before = %d", rec.Code)
	}
	for i := range 50 {
		if rec := saveFrom(srv, "198.51.100.7", titled(t, "paused-worker", fmt.Sprint("Run ", i))); rec.Code != http.StatusInsufficientStorage {
			t.Fatalf("save %d on a full disk = %d, want 507", i, rec.Code)
		}
	}
	if n := strings.Count(log.String(), `msg="database full"`); n != 1 {
		t.Errorf("50 saves on a full disk wrote %d log lines, want 1:\n%.600s", n, log.String())
	}
	if rec := plainGet(srv, "/readyz"); rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "full") {
		t.Errorf("/readyz on a full disk = %d %s, want 503", rec.Code, rec.Body)
	}
}

// TestQuestionsCountAgainstTheCap: a step that opens a question adds a
// row, so on a store at its size limit the presenter's move to a new
// question answers 507, while a move back to a question asked before, or
// to a step without one, goes on. (Before, question rows counted against
// nothing.)
func TestQuestionsCountAgainstTheCap(t *testing.T) {
	t.Parallel()
	const max = 64 << 20
	size := &switchSizer{}
	base, _ := publicServer(t, server.Config{Limits: server.Limits{MaxStoreSize: max}, Sizer: size})
	presenter := client(t)
	id, _ := startRoom(t, base, presenter)
	step := func(n int) (int, string) {
		res, body := send(t, presenter, http.MethodPost, base+paths.RoomStepPath(id),
			url.Values{"step": {fmt.Sprint(n)}}, "X-Requested-With", "test")
		return res.StatusCode, body
	}
	if got, body := step(8); got != http.StatusNoContent {
		t.Fatalf("step 8 with room in the store = %d %s, want 204", got, body)
	}
	size.n.Store(max)
	time.Sleep(1100 * time.Millisecond) // the store is measured at most once a second
	if got, body := step(8); got != http.StatusNoContent {
		t.Errorf("back to step 8, asked before, on a full store = %d %s, want 204", got, body)
	}
	refused := 0
	for n := 1; n <= 7; n++ {
		switch got, body := step(n); got {
		case http.StatusNoContent:
		case http.StatusInsufficientStorage:
			if !strings.Contains(body, "size limit") {
				t.Errorf("step %d on a full store = 507 %q, want it to name the limit", n, body)
			}
			refused++
		default:
			t.Errorf("step %d on a full store = %d %s, want 204 or 507", n, got, body)
		}
	}
	if refused == 0 {
		t.Error("no step opening a new question was refused on a full store")
	}
}

// switchSizer says the store is n bytes, as the test sets it.
type switchSizer struct{ n atomic.Int64 }

func (s *switchSizer) Size(context.Context) (int64, error) { return s.n.Load(), nil }

// fixedSizer says the store is always size bytes.
type fixedSizer struct{ size int64 }

func (f fixedSizer) Size(context.Context) (int64, error) { return f.size, nil }

// TestStoreCapIsNoLockout: once the store reaches its reserve (the last
// eighth under --max-store-size), large runs answer 507 but small ones
// from others still save, each network up to its share of the reserve.
// (Attack F6: 64 addresses filled the cap, then 84 of 90 polite saves
// got 507.)
func TestStoreCapIsNoLockout(t *testing.T) {
	t.Parallel()
	const max = 256 << 20 // reserve 32 MiB, 512 KiB a network an hour
	db := openDB(t, t.TempDir())
	srv, err := server.New(server.Config{Store: db, Library: testLibrary(t), Secret: testSecret,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Limits: server.Limits{MaxStoreSize: max, RefusalDelay: -1}, Sizer: fixedSizer{max - 30<<20}})
	if err != nil {
		t.Fatal(err)
	}
	big := largeScenario(t, 300)
	if rec := saveFrom(srv, "198.51.100.1", big); rec.Code != http.StatusInsufficientStorage || !strings.Contains(rec.Body.String(), "nearly at its size limit") {
		t.Errorf("a large run in the reserve = %d %.300s, want 507", rec.Code, rec.Body)
	}
	saved := 0
	for i := range 80 { // one network: about 512 KiB of small runs
		if rec := saveFrom(srv, "198.51.100.1", titled(t, "paused-worker", fmt.Sprint("Run ", i))); rec.Code == http.StatusCreated {
			saved++
		} else if rec.Code != http.StatusInsufficientStorage {
			t.Fatalf("small save %d = %d %s", i, rec.Code, rec.Body)
		}
	}
	if saved == 0 || saved == 80 {
		t.Errorf("one network saved %d of 80 small runs into the reserve, want some, then 507", saved)
	}
	for i, addr := range []string{"203.0.113.9", "192.0.2.77", "2001:db8:1::1"} {
		if rec := saveFrom(srv, addr, titled(t, "paused-worker", fmt.Sprint("Polite ", i))); rec.Code != http.StatusCreated {
			t.Errorf("a small save from another network (%s) = %d %.200s, want 201", addr, rec.Code, rec.Body)
		}
	}
}

// grownSizer is a database's size and base bytes more.
type grownSizer struct {
	db   *sqlite.DB
	base int64
}

func (g grownSizer) Size(ctx context.Context) (int64, error) {
	n, err := g.db.Size(ctx)
	return g.base + n, err
}

// largeScenario is a scenario of n events, larger than a small save.
func largeScenario(t testing.TB, n int) string {
	t.Helper()
	var sc map[string]any
	if err := json.Unmarshal([]byte(builtinSource(t, "paused-worker")), &sc); err != nil {
		t.Fatal(err)
	}
	events := sc["events"].([]any)
	for len(events) < n {
		events = append(events, map[string]any{"actor": "B", "kind": "read", "note": strings.Repeat("x", 100)})
	}
	sc["events"] = events
	b, _ := json.Marshal(sc)
	return string(b)
}

// TestNetworkBudget: the addresses of one /24 share one network budget
// beside their own, so that a flood from many addresses of one network
// gets a few clients' worth; another network saves as before.
func TestNetworkBudget(t *testing.T) {
	t.Parallel()
	srv := limitedServer(t, server.Limits{Saves: 2, SavesPerHour: 1})
	created := 0
	for i := range 6 { // 6 addresses of 198.51.100.0/24, 2 each: 12 > 4 × 2
		for j := range 2 {
			if rec := saveFrom(srv, fmt.Sprintf("198.51.100.%d", i+1), titled(t, "paused-worker", fmt.Sprint("Run ", i, j))); rec.Code == http.StatusCreated {
				created++
			} else if rec.Code != http.StatusTooManyRequests {
				t.Fatalf("save = %d %s", rec.Code, rec.Body)
			}
		}
	}
	if created != 8 {
		t.Errorf("one /24 saved %d runs, want 8 (4 clients' budgets)", created)
	}
	if rec := saveFrom(srv, "203.0.113.1", titled(t, "paused-worker", "Polite")); rec.Code != http.StatusCreated {
		t.Errorf("another network's save = %d, want 201", rec.Code)
	}
}

// TestPictureCacheKey: junk ?p= and ?d= values, other parameters and,
// with a base URL, the client's Host all name the one picture already
// drawn: none of them draws it again. (Attack F4: each missed the cache,
// and 16 full-size renders at once took 2 GB.)
func TestPictureCacheKey(t *testing.T) {
	t.Parallel()
	counted := &countingStore{Runs: openDB(t, t.TempDir())}
	srv, err := server.New(server.Config{Store: counted, Library: testLibrary(t), Secret: testSecret,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), BaseURL: "https://fencelab.example"})
	if err != nil {
		t.Fatal(err)
	}
	rec := postJSON(t, srv, "/api/runs", builtinSource(t, "paused-worker"))
	var saved struct{ ID string }
	if err := json.Unmarshal(rec.Body.Bytes(), &saved); err != nil {
		t.Fatal(err)
	}
	target := "/r/" + saved.ID + ".png?size=full"
	if rec := plainGet(srv, target); rec.Code != http.StatusOK {
		t.Fatalf("GET %s = %d", target, rec.Code)
	}
	before := counted.queries
	for i, q := range []string{"&d=junk", "&d=" + strings.Repeat("x", 50), "&zz=1", "&d=junk&x=2&size=full"} {
		req := httptest.NewRequest(http.MethodGet, target+q, nil)
		req.Host = fmt.Sprintf("attacker-%d.example", i)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Errorf("GET %s%s (Host %s) = %d", target, q, req.Host, rec.Code)
		}
	}
	if counted.queries != before {
		t.Errorf("junk parameters and Hosts drew the picture %d times more, want 0", counted.queries-before)
	}
	if rec := plainGet(srv, target+"&p=unfenced&p=junk"); rec.Code != http.StatusOK {
		t.Fatalf("GET with ?p=unfenced = %d", rec.Code)
	}
	before = counted.queries
	plainGet(srv, target+"&p=junk2&p=unfenced&p=unfenced")
	if counted.queries != before {
		t.Errorf("?p= with other junk drew the picture again")
	}
}

// TestCSVDefusesEveryCell: a student's name that a spreadsheet could run
// as a formula, at its start or after any separator it may split on, is
// text in the presenter's CSV, and control characters are dropped.
// (Attack: `x;=cmd|'/C calc'!A0` passed the guard.)
func TestCSVDefusesEveryCell(t *testing.T) {
	t.Parallel()
	base, _ := publicServer(t, server.Config{})
	presenter := client(t)
	id, code := startRoom(t, base, presenter)
	if res, _ := send(t, presenter, http.MethodPost, base+paths.RoomOptionsPath(id), url.Values{"names": {"1"}}, "X-Requested-With", "test"); res.StatusCode != http.StatusNoContent {
		t.Fatalf("names on = %d", res.StatusCode)
	}
	send(t, presenter, http.MethodPost, base+paths.RoomStepPath(id), url.Values{"step": {"8"}})
	names := []string{"x;=cmd|'/C calc'!A0", "=1+1", "a\tb\r\n=c", " @SUM(1)", "＝1", "ok|+1,-2", "Ada\x07\x1b[31m", "Bo, the student"}
	for _, name := range names {
		st := client(t)
		send(t, st, http.MethodGet, base+paths.JoinPath(code), nil)
		res, body := send(t, st, http.MethodPost, base+paths.JoinAnswerPath(code),
			url.Values{"step": {"8"}, "guess": {"accepted"}, "name": {name}}, "X-Requested-With", "test")
		if res.StatusCode != http.StatusOK {
			t.Fatalf("answer as %q = %d %s", name, res.StatusCode, body)
		}
	}
	_, body := send(t, presenter, http.MethodGet, base+paths.RoomCSVPath(id), nil)
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(body, "\ufeff"))).ReadAll()
	if err != nil || len(rows) != len(names)+1 {
		t.Fatalf("CSV of %d rows (%v), want %d:\n%s", len(rows), err, len(names)+1, body)
	}
	for _, row := range rows[1:] {
		cell := row[0]
		if strings.ContainsFunc(cell, unicode.IsControl) {
			t.Errorf("cell %q holds a control character", cell)
		}
		for _, part := range strings.FieldsFunc(cell, func(r rune) bool { return strings.ContainsRune(",;|", r) }) {
			if p := strings.TrimLeft(part, " "); p != "" && strings.ContainsRune("=+-@＝＋－＠", []rune(p)[0]) {
				t.Errorf("cell %q: %q would start a formula", cell, part)
			}
		}
	}
	if !strings.Contains(body, "Bo, the student") {
		t.Errorf("a harmless name was changed:\n%s", body)
	}
}

// TestStoreCapHoldsUnderConcurrentSaves: saves checked at the same
// moment each count against the cap at once, so that 32 large runs from
// 32 networks, with room for one, do not all pass and eat the reserve.
// (Measured: 64 networks at once took the store 3 MB past its cap.)
func TestStoreCapHoldsUnderConcurrentSaves(t *testing.T) {
	t.Parallel()
	const max = 256 << 20
	big := largeScenario(t, 300)
	var size int64 // of one such run, stored
	{
		db := openDB(t, t.TempDir())
		srv, _ := server.New(server.Config{Store: db, Library: testLibrary(t), Secret: testSecret,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		saveFrom(srv, "198.51.100.1", big)
		recent, err := db.Recent(t.Context(), 1)
		if err != nil || len(recent) != 1 {
			t.Fatal(err)
		}
		size = recent[0].Bytes
	}
	db := openDB(t, t.TempDir())
	start, err := db.Size(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Store: db, Library: testLibrary(t), Secret: testSecret,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Limits: server.Limits{MaxStoreSize: max, RefusalDelay: -1},
		Sizer: grownSizer{db, max - max/8 - size*3/2 - start}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var created atomic.Int64
	for i := range 32 {
		body := strings.Replace(big, `"title":"`, fmt.Sprintf(`"title":"flood %d `, i), 1)
		wg.Go(func() {
			if rec := saveFrom(srv, fmt.Sprintf("10.%d.0.1", i+1), body); rec.Code == http.StatusCreated {
				created.Add(1)
			}
		})
	}
	wg.Wait()
	if n := created.Load(); n != 1 {
		t.Errorf("32 large saves at once with room for one: %d saved, want 1", n)
	}
}

// TestImportsInTurn: one client's imports are read one at a time, so its
// second waits while its first is still being read, and other clients
// are served meanwhile. (Attack F3: 128 uploads at once from one address
// took the server from 24 MB to 3.78 GB.)
func TestImportsInTurn(t *testing.T) {
	t.Parallel()
	base, _ := publicServer(t, server.Config{})
	addr := strings.TrimPrefix(base, "http://")
	form := "log=" + url.QueryEscape("2026-12-01T10:00:00Z a acquire token=41\n")
	dial := func(from string) net.Conn {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
		conn, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	head := func(conn net.Conn, n int) {
		fmt.Fprintf(conn, "POST /import/preview HTTP/1.1\r\nHost: lab\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n", n)
	}
	status := func(conn net.Conn, wait time.Duration) int {
		conn.SetReadDeadline(time.Now().Add(wait))
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	first := dial("127.0.0.1")
	head(first, len(form))
	io.WriteString(first, form[:5]) // and stalls: its turn is held while its body is read
	time.Sleep(50 * time.Millisecond)
	second := dial("127.0.0.1")
	head(second, len(form))
	io.WriteString(second, form)
	if code := status(second, 300*time.Millisecond); code != 0 {
		t.Errorf("the same client's second import while its first is read: %d, want it to wait", code)
	}
	other := dial("127.0.0.2")
	head(other, len(form))
	io.WriteString(other, form)
	if code := status(other, 5*time.Second); code == 0 {
		t.Errorf("another client's import while the first client's is read: no answer, want one")
	}
	io.WriteString(first, form[5:])
	if code := status(first, 5*time.Second); code == 0 {
		t.Errorf("the first import, its body complete: no answer")
	}
	if code := status(second, 5*time.Second); code == 0 {
		t.Errorf("the second import, once the first was done: no answer")
	}
}
