package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fencelab/lab"
	"fencelab/server"
)

// doFrom sends one request from the client at addr, with extra headers.
func doFrom(t *testing.T, h http.Handler, addr string, headers map[string]string, method, target string, body io.Reader) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, body)
	req.RemoteAddr = addr
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// heldExplore holds every exploration until released and counts them.
type heldExplore struct {
	calls   atomic.Int32
	entered chan struct{}
	release chan struct{}
}

func newHeldExplore() *heldExplore {
	return &heldExplore{entered: make(chan struct{}, 16), release: make(chan struct{})}
}

func (h *heldExplore) run(ctx context.Context, sc *lab.Scenario, opt lab.ExploreOptions) *lab.Exploration {
	h.calls.Add(1)
	h.entered <- struct{}{}
	select {
	case <-h.release:
	case <-ctx.Done():
	}
	return lab.Explore(ctx, sc, opt)
}

// TestExploreFairShare checks that a client holds at most one slot: its
// second exploration gets 429 with Retry-After while others are served;
// without a queue, a third client gets 503 while two slots run.
func TestExploreFairShare(t *testing.T) {
	t.Parallel()
	h := newHeldExplore()
	s := newExploreServer(t, server.ExploreConfig{Limit: 2, Run: h.run, Queue: -1})
	const a, b, c = "203.0.113.1:1000", "198.51.100.2:1000", "192.0.2.3:1000" // three networks
	var wg sync.WaitGroup
	results := make(chan int, 2)
	wg.Go(func() { results <- doFrom(t, s, a, nil, "GET", "/explore?from=old-token-first", nil).Code })
	<-h.entered

	rec := doFrom(t, s, "203.0.113.1:2000", nil, "POST", "/api/explore?from=paused-worker", nil)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
		t.Errorf("a second exploration by the same client: status %d, Retry-After %q; want 429 with Retry-After",
			rec.Code, rec.Header().Get("Retry-After"))
	}
	wg.Go(func() { results <- doFrom(t, s, b, nil, "GET", "/explore?from=paused-worker", nil).Code })
	<-h.entered
	if rec := doFrom(t, s, c, nil, "GET", "/explore?from=killed-worker", nil); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("a third client while two slots run: status %d, want 503", rec.Code)
	}
	close(h.release)
	wg.Wait()
	close(results)
	for code := range results {
		if code != http.StatusOK {
			t.Errorf("an exploration holding a slot: status %d, want 200", code)
		}
	}
	if rec := doFrom(t, s, a, nil, "GET", "/explore?from=paused-worker", nil); rec.Code != http.StatusOK {
		t.Errorf("the first client again once its exploration ended: status %d, want 200", rec.Code)
	}
}

// TestExploreQueue: while two clients hold both slots, a third waits in
// turn and is served when one frees, instead of 503 (attack: a third got
// 503 on 11 of 12 tries); two addresses of one IPv6 /64 are one client.
func TestExploreQueue(t *testing.T) {
	t.Parallel()
	h := newHeldExplore()
	s := newExploreServer(t, server.ExploreConfig{Limit: 2, Run: h.run, Queue: 5 * time.Second})
	var wg sync.WaitGroup
	codes := make(chan int, 3)
	wg.Go(func() {
		codes <- doFrom(t, s, "[2001:db8:1:2::1]:1000", nil, "GET", "/explore?from=old-token-first", nil).Code
	})
	<-h.entered
	if rec := doFrom(t, s, "[2001:db8:1:2::99]:1000", nil, "GET", "/explore?from=paused-worker", nil); rec.Code != http.StatusTooManyRequests {
		t.Errorf("a second address of the same /64: status %d, want 429", rec.Code)
	}
	wg.Go(func() { codes <- doFrom(t, s, "203.0.113.2:1000", nil, "GET", "/explore?from=paused-worker", nil).Code })
	<-h.entered
	// Another address of 203.0.113.0/24: its network holds its share, one of the two.
	if rec := doFrom(t, s, "203.0.113.77:1000", nil, "GET", "/explore?from=killed-worker", nil); rec.Code != http.StatusTooManyRequests ||
		!strings.Contains(rec.Body.String(), "your network") {
		t.Errorf("a second address of the same /24 = %d, want 429 naming the network", rec.Code)
	}
	wg.Go(func() {
		codes <- doFrom(t, s, "198.51.100.3:1000", nil, "GET", "/explore?from=killed-worker", nil).Code
	})
	time.Sleep(50 * time.Millisecond) // the third is waiting for a slot
	close(h.release)
	wg.Wait()
	close(codes)
	for code := range codes {
		if code != http.StatusOK {
			t.Errorf("an exploration in turn: status %d, want 200", code)
		}
	}
}

// TestExploreIdenticalRunOnce checks that identical explorations asked for
// at once, by several clients or by one, run once and share the answer.
func TestExploreIdenticalRunOnce(t *testing.T) {
	t.Parallel()
	h := newHeldExplore()
	s := newExploreServer(t, server.ExploreConfig{Limit: 2, Run: h.run})
	addrs := []string{"203.0.113.1:1000", "203.0.113.2:1000", "203.0.113.1:1001", "203.0.113.9:1000"}
	var wg sync.WaitGroup
	codes := make([]int, len(addrs))
	bodies := make([]string, len(addrs))
	for i, addr := range addrs {
		wg.Go(func() {
			rec := doFrom(t, s, addr, nil, "POST", "/api/explore?from=old-token-first&budget=5000", nil)
			codes[i], bodies[i] = rec.Code, rec.Body.String()
		})
		if i == 0 {
			<-h.entered
		}
	}
	// The others join while the first is held: the metrics count them.
	// Late ones would be answered from the cache, and the count would
	// still be 1; early ones, before this change, ran their own.
	waitForMetric(t, s, fmt.Sprintf("fencelab_explorations_waiting %d", len(addrs)-1))
	close(h.release)
	wg.Wait()
	if n := h.calls.Load(); n != 1 {
		t.Errorf("%d identical explorations at once ran the engine %d times, want 1", len(addrs), n)
	}
	for i := range addrs {
		if codes[i] != http.StatusOK || bodies[i] != bodies[0] {
			t.Errorf("request %d of an identical exploration: status %d, same answer as the first %v; want 200, true",
				i, codes[i], bodies[i] == bodies[0])
		}
	}
}

// waitForMetric polls the metrics of s until a line reads want, for at
// most 5 s.
func waitForMetric(t *testing.T, s *server.Server, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		body := plainGet(s.Metrics(), "/metrics").Body.String()
		if slices.Contains(strings.Split(body, "\n"), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("after 5 s the metrics have no line %q", want)
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestExploreClientBehindTrustedProxy checks that the forwarded address
// tells clients apart only behind a configured proxy.
func TestExploreClientBehindTrustedProxy(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		proxies []string
		want    int
	}{
		{"no proxy configured: X-Forwarded-For is ignored", nil, http.StatusTooManyRequests},
		{"behind the configured proxy", []string{"192.0.2.0/24"}, http.StatusOK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHeldExplore()
			db := openDB(t, t.TempDir())
			s, err := server.New(server.Config{Store: db, Library: testLibrary(t), Secret: testSecret,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), TrustedProxies: tt.proxies,
				Explore: server.ExploreConfig{Limit: 2, Run: h.run}})
			if err != nil {
				t.Fatal(err)
			}
			const proxy = "192.0.2.10:5000"
			var wg sync.WaitGroup
			wg.Go(func() {
				doFrom(t, s, proxy, map[string]string{"X-Forwarded-For": "198.51.100.1"}, "GET", "/explore?from=old-token-first", nil)
			})
			<-h.entered
			done := make(chan int, 1)
			go func() {
				done <- doFrom(t, s, proxy, map[string]string{"X-Forwarded-For": "203.0.113.2"}, "GET", "/explore?from=paused-worker", nil).Code
			}()
			var got int
			if tt.want == http.StatusOK {
				<-h.entered
				close(h.release)
				got = <-done
			} else {
				got = <-done
				close(h.release)
			}
			if got != tt.want {
				t.Errorf("a second client behind one proxy (%v): status %d, want %d", tt.proxies, got, tt.want)
			}
			wg.Wait()
		})
	}
	if _, err := server.New(server.Config{Store: openDB(t, t.TempDir()), Library: testLibrary(t), Secret: testSecret,
		TrustedProxies: []string{"not-an-ip"}}); err == nil || !strings.Contains(err.Error(), "not-an-ip") {
		t.Errorf("server.New with a trusted proxy %q: error = %v, want one naming it", "not-an-ip", err)
	}
}

// TestExploreStopsWhenNobodyWaits checks that an exploration whose only
// client went away is cancelled, and that its client's share is given back.
func TestExploreStopsWhenNobodyWaits(t *testing.T) {
	t.Parallel()
	stopped := make(chan struct{})
	entered := make(chan struct{}, 1)
	s := newExploreServer(t, server.ExploreConfig{Run: func(ctx context.Context, sc *lab.Scenario, opt lab.ExploreOptions) *lab.Exploration {
		entered <- struct{}{}
		<-ctx.Done()
		close(stopped)
		return lab.Explore(ctx, sc, opt)
	}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		req := httptest.NewRequestWithContext(ctx, "GET", "/explore?from=old-token-first&deadline=10s", nil)
		s.ServeHTTP(httptest.NewRecorder(), req)
	}()
	<-entered
	start := time.Now()
	cancel()
	<-done
	<-stopped
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("an exploration whose only client went away ran on %v, until its deadline", waited)
	}
}
