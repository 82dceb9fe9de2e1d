package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The attacks on what the lab keeps: a takedown (F1), a room's answers
// (F5) and the store's cap (F6).

// attackTakedown (F1): a run is saved and its pages cached under every
// spelling, then hidden with `fencelab admin hide` beside the running
// server; every spelling of it must then answer 410 without its page,
// and what is no id 404. (The takedown check read the still-encoded id,
// and /r/%35… answered 200 from the page cache.)
func attackTakedown(t *testing.T, l *labProc) string {
	c := clientFrom("127.0.0.2", 4, false)
	title := "F1 takedown target"
	code, body, _ := do(c, http.MethodPost, l.base+"/api/runs", bytes.NewReader(retitler(t)(title)), "Content-Type", "application/json")
	var saved struct{ ID string }
	if json.Unmarshal([]byte(body), &saved); code != http.StatusCreated || saved.ID == "" {
		t.Fatalf("save = %d %s", code, body)
	}
	id := saved.ID
	first, rest := id[:1], id[1:]
	upper, lower := fmt.Sprintf("%%%02X", id[0]), fmt.Sprintf("%%%02x", id[0])
	var all strings.Builder
	for i := range len(id) {
		fmt.Fprintf(&all, "%%%02X", id[i])
	}
	// letterEsc escapes the id's first letter, so that the hex escape has
	// letters of its own (%4A against %4a).
	letterEsc := func(esc string) string {
		i := strings.IndexFunc(id, func(r rune) bool { return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' })
		if i < 0 {
			return "/r/" + all.String()
		}
		return "/r/" + id[:i] + fmt.Sprintf(esc, id[i]) + id[i+1:]
	}
	hidden := []string{
		"/r/" + id, "/r/" + upper + rest, "/r/" + lower + rest, "/r/" + all.String(),
		letterEsc("%%%02X"), letterEsc("%%%02x"),
		"/r/" + id + ".json", "/r/" + id + "%2Ejson", "/r/" + id + "%2ejson", "/r/" + upper + rest + ".json",
		"/r/" + id + ".png", "/r/" + id + ".png?size=full", "/r/" + upper + rest + ".png", "/r/" + id + "%2Epng",
		"/r/" + id + ".svg", "/r/" + upper + rest + ".svg", "/r/" + id + ".md", "/r/" + id + "%2Emd",
		"/r/" + id + "/embed", "/r/" + upper + rest + "/embed",
		"/r/" + id + "/present", "/r/" + upper + rest + "/present",
		"/api/runs/" + id, "/api/runs/" + upper + rest, "/api/runs/" + lower + rest, "/api/runs/" + all.String(),
		"/r/" + id + "?p=unfenced", "/r/" + id + "?junk=1",
	}
	// An escaped slash makes one segment that is no id: 404 or 410.
	either := []string{"/r/" + id + "%2Fembed", "/r/" + id + "%2fpresent"}
	notIDs := []string{"/r/%25" + upper[1:] + rest, "/r/" + id + "x", "/r/" + first + first + rest, "/api/runs/%25" + upper[1:] + rest}
	for _, p := range hidden { // into every cache there is
		do(c, http.MethodGet, l.base+p, nil)
	}
	if out, code := l.fencelab("admin", "hide", id, "--reason", "Attack F1.", "--db", l.db); code != 0 {
		t.Fatalf("fencelab admin hide = %d %s", code, out)
	}
	// A takedown by another process reaches the server when it next reads.
	deadline := time.Now().Add(20 * time.Second)
	for {
		if code, _, _ := do(c, http.MethodGet, l.base+"/r/"+id, nil); code == http.StatusGone || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	var bad []string
	check := func(method, p string, want ...int) {
		code, body, _ := do(c, method, l.base+p, nil)
		if !slices.Contains(want, code) || strings.Contains(body, title) {
			bad = append(bad, fmt.Sprintf("%s %s = %d (title in it: %v)", method, p, code, strings.Contains(body, title)))
		}
	}
	for _, p := range hidden {
		check(http.MethodGet, p, http.StatusGone)
		check(http.MethodHead, p, http.StatusGone)
	}
	for _, p := range notIDs {
		check(http.MethodGet, p, http.StatusNotFound)
	}
	for _, p := range either {
		check(http.MethodGet, p, http.StatusNotFound, http.StatusGone)
	}
	// The oEmbed of a hidden run names no title.
	code, body, _ = do(c, http.MethodGet, l.base+"/oembed?url="+url.QueryEscape(l.base+"/r/"+id), nil)
	if code == http.StatusOK || strings.Contains(body, title) {
		bad = append(bad, fmt.Sprintf("GET /oembed?url=…/r/%s = %d (title in it: %v)", id, code, strings.Contains(body, title)))
	}
	n := 2*len(hidden) + len(notIDs) + len(either) + 1
	if len(bad) > 0 {
		t.Errorf("after fencelab admin hide, %d of %d requests got the wrong answer:\n%s", len(bad), n, strings.Join(bad, "\n"))
		return fmt.Sprintf("%d of %d spellings wrong, such as %s", len(bad), n, bad[0])
	}
	return fmt.Sprintf("%d spellings (GET and HEAD) of the hidden run 410, %d non-ids 404, %d escaped slashes 404 or 410, oEmbed %d",
		2*len(hidden), len(notIDs), len(either), code)
}

// roomOf starts a live room on page as presenter, from the presenter's
// address, and moves it to step 8 (a question); it returns the room's id
// and code.
func roomOf(t *testing.T, l *labProc, presenter *http.Client, page string) (id, code string) {
	t.Helper()
	form := url.Values{"page": {page}, "p": {"unfenced", "fenced"}, "d": {"fenced"}}
	status, _, h := do(presenter, http.MethodPost, l.base+"/rooms", strings.NewReader(form.Encode()),
		"Content-Type", "application/x-www-form-urlencoded")
	loc := h.Get("Location")
	_, id, ok := strings.Cut(loc, "?room=")
	if status != http.StatusSeeOther || !ok {
		t.Fatalf("POST /rooms = %d, Location %q; want 303 to the presentation", status, loc)
	}
	if u, err := url.Parse(loc); err == nil && u.IsAbs() {
		loc = u.RequestURI()
	}
	_, screen, _ := do(presenter, http.MethodGet, l.base+loc, nil)
	m := roomCode.FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("GET %s: no room code on the presenter's screen", loc)
	}
	if status, body, _ := do(presenter, http.MethodPost, l.base+"/rooms/"+id+"/step", strings.NewReader("step=8"),
		"Content-Type", "application/x-www-form-urlencoded"); status != http.StatusNoContent {
		t.Fatalf("step 8 = %d %s", status, body)
	}
	return id, m[1]
}

var roomCode = regexp.MustCompile(`class="room-join-code">([A-Z0-9]+)<`)

// answer posts a guess at step 8 as room.js does.
func answer(c *http.Client, l *labProc, code string, extra ...string) int {
	form := url.Values{"step": {"8"}, "guess": {"accepted"}}
	for i := 0; i+1 < len(extra); i += 2 {
		form.Set(extra[i], extra[i+1])
	}
	status, _, _ := do(c, http.MethodPost, l.base+"/join/"+code+"/answer", strings.NewReader(form.Encode()),
		"Content-Type", "application/x-www-form-urlencoded", "X-Requested-With", "test")
	return status
}

// attackAnswers (F5): one client answers a live room's question from 32
// connections for 30 s, half without a cookie and half with a student
// cookie minted for each answer (the phone's page sets one). Answers past
// the client's budget must be refused, and the store must grow little.
// (Before: 104,000 answers, +23.7 MB in 30 s.)
func attackAnswers(t *testing.T, l *labProc) string {
	presenter := clientFrom("127.0.0.2", 4, true)
	_, code := roomOf(t, l, presenter, "/scenarios/paused-worker")
	before, dbBefore := l.storeBytes(), l.dbSize()
	const attacker = "127.0.4.1"
	bare := clientFrom(attacker, 16, false)
	var got statuses
	duration := 30 * time.Second
	until(duration, 32, func(i int) {
		if i%2 == 0 {
			got.add(answer(bare, l, code))
			return
		}
		st := clientFrom(attacker, 1, true)
		do(st, http.MethodGet, l.base+"/join/"+code, nil)
		got.add(answer(st, l, code))
		st.CloseIdleConnections()
	})
	growth, dbGrowth := l.storeBytes()-before, l.dbSize()-dbBefore
	stored := got.get(http.StatusOK)
	// The budget: 900 answers at once, then 6,000 an hour.
	budget := 900 + int(6000*duration.Hours()) + 1
	if stored > budget {
		t.Errorf("%d answers stored from one client in %s, over its budget of %d", stored, duration, budget)
	}
	if got.get(http.StatusTooManyRequests) == 0 {
		t.Errorf("no answer refused with 429 past the budget: %s", &got)
	}
	if bad := got.only(http.StatusOK, http.StatusForbidden, http.StatusConflict, http.StatusTooManyRequests); bad != "" {
		t.Errorf("answers got %s, want only 200, 403, 409 and 429", bad)
	}
	// The files carry the write-ahead log too, which SQLite reuses from
	// its start after each checkpoint (about 4 MB): what grows with the
	// flood's length is the database.
	if dbGrowth > 2<<20 {
		t.Errorf("the database grew %s during the flood, want under 2 MiB (before the fix: 23.7 MB in 30 s)", sizeOf(dbGrowth))
	}
	return fmt.Sprintf("%d answers sent in %s (%s); during the flood the database grew %s, its files %s (the write-ahead log)",
		got.total(), duration, &got, sizeOf(dbGrowth), sizeOf(growth))
}

// attackStoreCap (F6): 64 addresses (from addr) post large distinct runs,
// four at a time each, for 20 s against --max-store-size 300MiB; then 10 s
// more of the polite client alone. The polite client's small saves must
// all succeed (none 507), and the store stay within its cap. An IPv6
// address is forwarded (X-Forwarded-For from 127.0.0.1, which the server
// must trust).
func attackStoreCap(addr func(i int) string) func(t *testing.T, l *labProc) string {
	return func(t *testing.T, l *labProc) string {
		const capBytes = 300 << 20
		var got statuses
		var n atomic.Int64
		clients := make([]*http.Client, 64)
		header := make([][]string, 64)
		for i := range clients {
			header[i] = []string{"Content-Type", "application/json"}
			if a := addr(i); strings.Contains(a, ":") {
				clients[i] = clientFrom("127.0.0.1", 4, false)
				header[i] = append(header[i], "X-Forwarded-For", a)
			} else {
				clients[i] = clientFrom(a, 4, false)
			}
		}
		start := time.Now()
		var fullAfter atomic.Int64
		until(20*time.Second, 256, func(i int) {
			code, _, _ := do(clients[i/4], http.MethodPost, l.base+"/api/runs", bytes.NewReader(bigScenario(n.Add(1))), header[i/4]...)
			got.add(code)
			if code == http.StatusInsufficientStorage {
				fullAfter.CompareAndSwap(0, int64(time.Since(start)))
			}
		})
		afterFlood, floodEnd := l.storeBytes(), time.Now()
		time.Sleep(10 * time.Second)
		during, duringFailed := l.polite.savesBetween(start, floodEnd)
		after, afterFailed := l.polite.savesBetween(floodEnd, time.Now())
		slow := 0
		for _, d := range during {
			if d > time.Second {
				slow++
			}
		}
		size := l.storeBytes()
		if size > capBytes*102/100 {
			t.Errorf("the store's files are %s, past the cap of 300 MiB by more than 2%%", sizeOf(size))
		}
		if bad := got.only(http.StatusCreated, http.StatusTooManyRequests, http.StatusInsufficientStorage); bad != "" {
			t.Errorf("the flood's saves got %s, want only 201, 429 and 507", bad)
		}
		full := "never"
		if d := time.Duration(fullAfter.Load()); d > 0 {
			full = "after " + d.Round(100*time.Millisecond).String()
		}
		return fmt.Sprintf("flood of %d large saves in 20 s (%s); first 507 %s; store %s at the flood's end, %s (%.0f%% of the cap) 10 s later; "+
			"the polite client's saves during the flood: %d, %d failed, %d over 1 s, max %s; in the 10 s after: %d, %d failed, p99 %s",
			got.total(), &got, full, sizeOf(afterFlood), sizeOf(size), 100*float64(size)/capBytes,
			len(during), duringFailed, slow, percentile(during, 1).Round(time.Millisecond),
			len(after), afterFailed, percentile(after, 0.99).Round(time.Millisecond))
	}
}
