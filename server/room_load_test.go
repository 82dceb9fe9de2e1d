//go:build load

package server_test

// The load test of a live room, kept out of the default `go test` run:
//
//	go test -tags load -run TestRoomLoad -count=1 -v ./server
//
// One room, 300 phones on one server, over real loopback connections:
// each step the presenter takes must reach every phone within 200 ms at
// the 99th percentile, and 300 answers sent at once must all be counted.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fencelab/server"
	"fencelab/views/paths"
)

const (
	loadPhones = 300
	loadRounds = 20 // step changes measured
)

func TestRoomLoad(t *testing.T) {
	base := startRoomServer(t, server.RoomConfig{MaxPhones: 1000, MaxConnections: 2000})
	presenter := client(t)
	id, code := startRoom(t, base, presenter)
	transport := &http.Transport{MaxIdleConnsPerHost: 2 * loadPhones, MaxConnsPerHost: 0}
	t.Cleanup(transport.CloseIdleConnections)

	// Each phone records when it first saw each step.
	type phone struct {
		c    *http.Client
		mu   sync.Mutex
		seen map[int]time.Time
	}
	phones := make([]*phone, loadPhones)
	var ready sync.WaitGroup
	for i := range phones {
		jar, _ := cookiejar.New(nil)
		p := &phone{c: &http.Client{Jar: jar, Transport: transport}, seen: map[int]time.Time{}}
		phones[i] = p
		send(t, p.c, http.MethodGet, base+paths.JoinPath(code), nil) // the student's cookie
		feed, _ := stream(t, p.c, base+paths.JoinEventsPath(code))
		ready.Add(1)
		go func() {
			first := true
			for ev := range feed {
				if ev.name != "room" {
					continue
				}
				var s struct{ Step int }
				json.Unmarshal([]byte(ev.data), &s)
				at := time.Now()
				p.mu.Lock()
				if _, ok := p.seen[s.Step]; !ok {
					p.seen[s.Step] = at
				}
				p.mu.Unlock()
				if first {
					first = false
					ready.Done()
				}
			}
		}()
	}
	ready.Wait()
	board, _ := stream(t, presenter, base+paths.RoomEventsPath(id))
	next(t, board, "room", fmt.Sprintf(`"students":%d`, loadPhones))

	// Step changes: 2, 3, ... 7, then back to 2, never step 8 (the question).
	var lat []time.Duration
	step := 1
	for round := range loadRounds {
		step = 2 + round%6
		for _, p := range phones {
			p.mu.Lock()
			delete(p.seen, step)
			p.mu.Unlock()
		}
		start := time.Now()
		if res, _ := send(t, presenter, http.MethodPost, base+paths.RoomStepPath(id), url.Values{"step": {fmt.Sprint(step)}}); res.StatusCode != http.StatusNoContent {
			t.Fatalf("step %d = %d", step, res.StatusCode)
		}
		deadline := time.Now().Add(5 * time.Second)
		for _, p := range phones {
			for {
				p.mu.Lock()
				at, ok := p.seen[step]
				p.mu.Unlock()
				if ok {
					lat = append(lat, at.Sub(start))
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("round %d: a phone never saw step %d", round, step)
				}
				time.Sleep(time.Millisecond)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	slices.Sort(lat)
	pct := func(q float64) time.Duration { return lat[int(q*float64(len(lat)-1))] }
	t.Logf("step change to %d phones, %d rounds: p50 %v, p99 %v, max %v",
		loadPhones, loadRounds, pct(.50).Round(100*time.Microsecond), pct(.99).Round(100*time.Microsecond), lat[len(lat)-1].Round(100*time.Microsecond))
	if p99 := pct(.99); p99 > 200*time.Millisecond {
		t.Errorf("p99 of the step change = %v, want at most 200 ms", p99)
	}

	// 300 answers at once, all counted.
	send(t, presenter, http.MethodPost, base+paths.RoomStepPath(id), url.Values{"step": {"8"}})
	var wg sync.WaitGroup
	var failed sync.Map
	start := time.Now()
	for i, p := range phones {
		wg.Add(1)
		go func() {
			defer wg.Done()
			guess := []string{"accepted", "rejected"}[i%2]
			res, body := send(t, p.c, http.MethodPost, base+paths.JoinAnswerPath(code),
				url.Values{"step": {"8"}, "guess": {guess}, "name": {fmt.Sprint("student ", i)}}, "X-Requested-With", "load")
			if res.StatusCode != http.StatusOK {
				failed.Store(i, fmt.Sprintf("%d %s", res.StatusCode, strings.TrimSpace(body)))
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	failed.Range(func(k, v any) bool { t.Errorf("answer of phone %v: %v", k, v); return true })
	ev := next(t, board, "room", fmt.Sprintf(`"answers":%d`, loadPhones))
	t.Logf("%d answers sent at once: all accepted and counted in %v (%s)", loadPhones, took.Round(time.Millisecond), ev.data)
}
