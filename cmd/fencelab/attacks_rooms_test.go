package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode"
)

// The attacks on live rooms: guessing codes, filling a room, reading the
// answer early, the presenter's CSV, and a taken-down room's streams.

// attackJoinGuessing: one client guesses room codes from 8 connections
// for 6 s. Wrong guesses past its misses (300 at once, then 600 an hour)
// must be refused, so that guessing a live room takes years.
// (Before: 19,600 guesses a second, none refused.)
func attackJoinGuessing(t *testing.T, l *labProc) string {
	c := clientFrom("127.0.5.1", 8, false)
	const alphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
	var got statuses
	start := time.Now()
	var firstRefusal atomic.Int64
	duration := 6 * time.Second
	until(duration, 8, func(int) {
		code := make([]byte, 6)
		for i := range code {
			code[i] = alphabet[rand.IntN(len(alphabet))]
		}
		status, _, _ := do(c, http.MethodGet, l.base+"/join/"+string(code), nil)
		got.add(status)
		if status == http.StatusTooManyRequests {
			firstRefusal.CompareAndSwap(0, int64(time.Since(start)))
		}
	})
	misses := got.get(http.StatusNotFound)
	if budget := 300 + int(600*duration.Hours()) + 1; misses > budget {
		t.Errorf("%d wrong codes answered 404 from one client in %s, over its misses of %d", misses, duration, budget)
	}
	if got.get(http.StatusTooManyRequests) == 0 {
		t.Errorf("no guess refused: %s", &got)
	}
	refusedAfter := time.Duration(firstRefusal.Load())
	rate := float64(misses) / max(refusedAfter, time.Millisecond).Seconds()
	return fmt.Sprintf("%d guesses in %s (%s); the first 429 after %s, %.0f wrong guesses a second accepted before it",
		got.total(), duration, &got, refusedAfter.Round(time.Millisecond), rate)
}

// roomEvent is one server-sent event.
type roomEvent struct{ name, data string }

// openStream opens the event stream at target and returns its events;
// they end when the stream closes or cancel is called.
func openStream(c *http.Client, target string) (<-chan roomEvent, func(), error) {
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	res, err := c.Do(req)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		cancel()
		return nil, nil, fmt.Errorf("GET %s = %d", target, res.StatusCode)
	}
	out := make(chan roomEvent, 16)
	go func() {
		defer close(out)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		var ev roomEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = strings.TrimPrefix(line, "data: ")
			case line == "" && ev.name != "":
				out <- ev
				ev = roomEvent{}
			}
		}
	}()
	return out, cancel, nil
}

// nextEvent is the next event within wait; "" when the stream closed,
// "(none)" when nothing came.
func nextEvent(events <-chan roomEvent, wait time.Duration) roomEvent {
	select {
	case ev, ok := <-events:
		if !ok {
			return roomEvent{name: ""}
		}
		return ev
	case <-time.After(wait):
		return roomEvent{name: "(none)"}
	}
}

// attackPhoneSlots: one client opens 400 phones in one room (each a
// stream with a cookie of its own). It may hold at most 300 (three
// quarters), and a phone from another address still joins.
// (Before: one client took all 400.)
func attackPhoneSlots(t *testing.T, l *labProc) string {
	presenter := clientFrom("127.0.0.2", 4, true)
	_, code := roomOf(t, l, presenter, "/scenarios/paused-worker")
	var got statuses
	var mu sync.Mutex
	firsts := map[string]int{}
	var cancels []func()
	var cmu sync.Mutex
	eachAt(400, func(int) {
		c := clientFrom("127.0.5.2", 1, true)
		events, cancel, err := openStream(c, l.base+"/join/"+code+"/events")
		if err != nil {
			got.add(0)
			return
		}
		cmu.Lock()
		cancels = append(cancels, cancel)
		cmu.Unlock()
		ev := nextEvent(events, 10*time.Second)
		mu.Lock()
		firsts[ev.name]++
		mu.Unlock()
	})
	other := clientFrom("127.0.5.3", 1, true)
	events, cancel, err := openStream(other, l.base+"/join/"+code+"/events")
	otherFirst := "(no stream)"
	if err == nil {
		otherFirst = nextEvent(events, 10*time.Second).name
		cancel()
	}
	for _, c := range cancels {
		c()
	}
	if firsts["room"] > 300 {
		t.Errorf("one client holds %d phones of a room, over 300", firsts["room"])
	}
	if otherFirst != "room" {
		t.Errorf("a phone from another address got %q first, want the room", otherFirst)
	}
	return fmt.Sprintf("400 phones from one address: first events %v (%d streams not opened); a phone from another address: %s",
		firsts, got.get(0), otherFirst)
}

// attackPhonePage: at a question, the phone's page is fetched and
// searched for the right answer (rejected at step 8 of paused-worker) and
// its explanation; they must be absent before the reveal, and present
// after it (so that the search means something).
func attackPhonePage(t *testing.T, l *labProc) string {
	presenter := clientFrom("127.0.0.2", 4, true)
	id, code := roomOf(t, l, presenter, "/scenarios/paused-worker")
	phone := clientFrom("127.0.5.4", 1, true)
	leaks := []string{"data-reveal", `data-answer="rejected"`, `data-answer="accepted"`, "Rejected, because", "Accepted, because"}
	_, before, _ := do(phone, http.MethodGet, l.base+"/join/"+code, nil)
	var found []string
	for _, leak := range leaks {
		if strings.Contains(before, leak) {
			found = append(found, leak)
		}
	}
	if len(found) > 0 {
		t.Errorf("the phone's page before the reveal holds %q", found)
	}
	if status, body, _ := do(presenter, http.MethodPost, l.base+"/rooms/"+id+"/reveal", strings.NewReader("step=8"),
		"Content-Type", "application/x-www-form-urlencoded"); status != http.StatusNoContent {
		t.Fatalf("reveal = %d %s", status, body)
	}
	_, after, _ := do(phone, http.MethodGet, l.base+"/join/"+code, nil)
	shown := strings.Contains(after, `data-answer="rejected"`) && strings.Contains(after, "Rejected, because")
	if !shown {
		t.Errorf("the phone's page after the reveal lacks the answer: the search for it means nothing")
	}
	return fmt.Sprintf("before the reveal the page (%d bytes) holds %d of %d answer marks %q; after it, the answer shown: %v",
		len(before), len(found), len(leaks), found, shown)
}

// attackCSV: students answer with names a spreadsheet would run
// (`x;=cmd|'/C calc'!A0` and others) and with control characters; in the
// presenter's CSV none may start a formula at a cell's start or after a
// separator, and none hold a control character.
func attackCSV(t *testing.T, l *labProc) string {
	presenter := clientFrom("127.0.0.2", 4, true)
	id, code := roomOf(t, l, presenter, "/scenarios/paused-worker")
	if status, body, _ := do(presenter, http.MethodPost, l.base+"/rooms/"+id+"/options", strings.NewReader("names=1"),
		"Content-Type", "application/x-www-form-urlencoded", "X-Requested-With", "test"); status != http.StatusNoContent {
		t.Fatalf("names on = %d %s", status, body)
	}
	names := []string{"x;=cmd|'/C calc'!A0", "=1+1", "a\tb\r\n=c", " @SUM(1)", "＝1", "ok|+1,-2", "-2+3", "Ada\x07\x1b[31m", "Bo, the student"}
	for i, name := range names {
		st := clientFrom(fmt.Sprintf("127.0.5.%d", 10+i), 1, true)
		do(st, http.MethodGet, l.base+"/join/"+code, nil)
		if status := answer(st, l, code, "name", name); status != http.StatusOK {
			t.Fatalf("answer as %q = %d", name, status)
		}
	}
	_, body, _ := do(presenter, http.MethodGet, l.base+"/rooms/"+id+"/results.csv", nil)
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(body, "\ufeff"))).ReadAll()
	if err != nil || len(rows) != len(names)+1 {
		t.Fatalf("CSV of %d rows (%v), want %d:\n%s", len(rows), err, len(names)+1, body)
	}
	var bad []string
	for _, row := range rows[1:] {
		for _, cell := range row {
			if strings.ContainsFunc(cell, unicode.IsControl) {
				bad = append(bad, fmt.Sprintf("%q holds a control character", cell))
			}
			for _, part := range strings.FieldsFunc(cell, func(r rune) bool { return strings.ContainsRune(",;|\t", r) }) {
				if p := strings.TrimLeft(part, " "); p != "" && strings.ContainsRune("=+-@＝＋－＠", []rune(p)[0]) {
					bad = append(bad, fmt.Sprintf("%q: %q would start a formula", cell, part))
				}
			}
		}
	}
	if len(bad) > 0 {
		t.Errorf("the CSV:\n%s", strings.Join(bad, "\n"))
	}
	var firsts []string
	for _, row := range rows[1:] {
		firsts = append(firsts, fmt.Sprintf("%q", row[0]))
	}
	return fmt.Sprintf("%d names; %d cells could run; the names as exported: %s", len(names), len(bad), strings.Join(firsts, " "))
}

// attackRoomTakedown: a room on a saved run, a phone's stream open; the
// run is hidden with `fencelab admin hide`. The open stream must end
// with a final gone event (within the 15 s recheck), and a new stream get
// only that event.
func attackRoomTakedown(t *testing.T, l *labProc) string {
	presenter := clientFrom("127.0.0.2", 4, true)
	status, body, _ := do(presenter, http.MethodPost, l.base+"/api/runs", bytes.NewReader(retitler(t)("a room's run")), "Content-Type", "application/json")
	var saved struct{ ID string }
	if json.Unmarshal([]byte(body), &saved); status != http.StatusCreated {
		t.Fatalf("save = %d %s", status, body)
	}
	_, code := roomOf(t, l, presenter, "/r/"+saved.ID)
	phone := clientFrom("127.0.5.5", 2, true)
	events, cancel, err := openStream(phone, l.base+"/join/"+code+"/events")
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	if ev := nextEvent(events, 10*time.Second); ev.name != "room" {
		t.Fatalf("the phone's first event: %q, want the room", ev.name)
	}
	if out, code := l.fencelab("admin", "hide", saved.ID, "--reason", "Attack on a room.", "--db", l.db); code != 0 {
		t.Fatalf("fencelab admin hide = %d %s", code, out)
	}
	hidden := time.Now()
	var last roomEvent
	var gone time.Duration
	for deadline := time.Now().Add(25 * time.Second); time.Now().Before(deadline); {
		ev := nextEvent(events, time.Until(deadline))
		if ev.name == "gone" {
			gone = time.Since(hidden)
		}
		if ev.name == "" || ev.name == "(none)" {
			break
		}
		last = ev
	}
	closed := nextEvent(events, 5*time.Second).name == ""
	if gone == 0 || !closed {
		t.Errorf("the open stream after the takedown: last event %q, closed %v; want gone, then closed", last.name, closed)
	}
	again, cancel2, err := openStream(phone, l.base+"/join/"+code+"/events")
	newFirst, newClosed := "(refused: "+fmt.Sprint(err)+")", true
	if err == nil {
		defer cancel2()
		newFirst = nextEvent(again, 5*time.Second).name
		newClosed = nextEvent(again, 5*time.Second).name == ""
		if newFirst != "gone" || !newClosed {
			t.Errorf("a new stream after the takedown: first %q, closed after it %v; want gone and closed", newFirst, newClosed)
		}
	}
	return fmt.Sprintf("the open stream got gone %s after the hide and closed: %v; a new stream: %s, closed: %v",
		gone.Round(100*time.Millisecond), closed, newFirst, newClosed)
}
