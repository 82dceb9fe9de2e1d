package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fencelab/server"
	"fencelab/server/store"
	"fencelab/server/store/sqlite"
)

// serialStore writes one run at a time, in the order they came, as a
// database's one writer does, a large run (a flood's) taking a moment; it
// counts the large runs written, and how many were written before each
// small one.
type serialStore struct {
	*sqlite.DB
	writer      chan struct{} // its one writer, taken in the order asked
	mu          sync.Mutex
	large       int
	smallAfter  []int
	largeWrites time.Duration
}

func (s *serialStore) SaveRun(ctx context.Context, r store.Run) (store.Run, error) {
	s.writer <- struct{}{}
	defer func() { <-s.writer }()
	s.mu.Lock()
	if len(r.Scenario) > 16<<10 {
		time.Sleep(s.largeWrites)
		s.large++
	} else {
		s.smallAfter = append(s.smallAfter, s.large)
	}
	s.mu.Unlock()
	return s.DB.SaveRun(ctx, r)
}

func (s *serialStore) written() (large int, smallAfter []int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.large, append([]int(nil), s.smallAfter...)
}

// TestSmallSaveIsNotQueuedBehindAFlood: while 64 networks each post large
// runs four at a time, faster than the store writes them, a small save
// from another network is written after a few of them, not after the
// hundreds queued. (Attack F6's polite client: its saves took 1 to 2 s
// while the store filled, waiting behind every request the flood had
// sent, for the cores and for the store's writer.)
func TestSmallSaveIsNotQueuedBehindAFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("the flood writes 256 runs: not under -short")
	}
	t.Parallel()
	db := openDB(t, t.TempDir())
	st := &serialStore{DB: db, writer: make(chan struct{}, 1), largeWrites: 3 * time.Millisecond}
	srv, err := server.New(server.Config{Store: st, Rooms: db, Takedowns: db, Library: testLibrary(t), Secret: testSecret,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Limits: server.Limits{RefusalDelay: -1}})
	if err != nil {
		t.Fatal(err)
	}
	big := largeScenario(t, 300)
	if len(big) <= 8<<10 || len(big) > 64<<10 {
		t.Fatalf("the flood's scenario is %d bytes, want a large body under the limit", len(big))
	}
	var wg sync.WaitGroup
	codes := make([]int, 256)
	for i := range codes {
		addr := fmt.Sprintf("10.%d.0.1", i/4+1) // 64 networks, 4 saves each at once
		body := strings.Replace(big, `"title":"`, fmt.Sprintf(`"title":"flood %d `, i), 1)
		wg.Go(func() { codes[i] = saveFrom(srv, addr, body).Code })
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if n, _ := st.written(); n >= 16 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the flood wrote fewer than 16 runs in 10 s")
		}
	}
	before, _ := st.written()
	if rec := saveFrom(srv, "203.0.113.9", titled(t, "paused-worker", "Polite")); rec.Code != http.StatusCreated {
		t.Errorf("the polite save = %d %.200s, want 201", rec.Code, rec.Body)
	}
	wg.Wait()
	saved := 0
	for i, code := range codes {
		switch code {
		case http.StatusCreated:
			saved++
		case http.StatusTooManyRequests, http.StatusServiceUnavailable:
			// waited its 10 s in turn in vain: a slow machine, or the race detector
		default:
			t.Fatalf("flood save %d = %d, want 201, or 429 or 503 after its wait", i, code)
		}
	}
	large, smallAfter := st.written()
	if large != saved || len(smallAfter) != 1 {
		t.Fatalf("wrote %d large runs and %d small ones, want %d and 1", large, len(smallAfter), saved)
	}
	behind := smallAfter[0] - before
	t.Logf("the polite save was written after %d more of the flood's runs, out of %d queued", behind, 256-before)
	if behind > 32 {
		t.Errorf("the polite save was written after %d more of the flood's runs, out of %d still queued; want at most 32",
			behind, 256-before)
	}
}

// TestRendersTakeTurns: 64 networks asking at once for a large run's page
// under distinct ?p= choices, none of them kept yet, are rendered a few at
// a time while the rest wait their turn. (Before, all 256 were rendered
// at once: 2.2 GB, and a polite client's reads took 1.5 to 2.7 s.)
func TestRendersTakeTurns(t *testing.T) {
	if testing.Short() {
		t.Skip("256 renders of a large run: not under -short")
	}
	t.Parallel()
	srv := limitedServer(t, server.Limits{})
	rec := saveFrom(srv, "203.0.113.9", largeScenario(t, 300))
	if rec.Code != http.StatusCreated {
		t.Fatalf("save = %d %.200s", rec.Code, rec.Body)
	}
	page := strings.TrimPrefix(rec.Header().Get("Location"), "http://example.com")
	policies := []string{"unfenced", "client-check", "fenced", "fenced-strict", "fenced-idempotent",
		"fenced-register", "authoritative", "fenced-racy", "cas"}
	var running, waiting atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() { // the metrics, as an operator sees them during the flood
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			default:
			}
			body := plainGet(srv.Metrics(), "/metrics").Body.String()
			for line := range strings.Lines(body) {
				var n int64
				if _, err := fmt.Sscanf(line, "fencelab_work_running %d", &n); err == nil {
					running.Store(max(running.Load(), n))
				}
				if _, err := fmt.Sscanf(line, "fencelab_work_waiting %d", &n); err == nil {
					waiting.Store(max(waiting.Load(), n))
				}
			}
		}
	}()
	var wg sync.WaitGroup
	codes := make([]int, 256)
	for i := range codes {
		var q []string
		for j, p := range policies {
			if (i+1)>>j&1 == 1 {
				q = append(q, "p="+p)
			}
		}
		target := page + "?" + strings.Join(q, "&")
		wg.Go(func() {
			req := httptest.NewRequest(http.MethodGet, target, nil)
			req.RemoteAddr = fmt.Sprintf("10.%d.0.1:40000", i/4+1)
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			codes[i] = rec.Code
		})
	}
	wg.Wait()
	close(stop)
	<-sampled
	rendered := 0
	for i, code := range codes {
		switch code {
		case http.StatusOK:
			rendered++
		case http.StatusTooManyRequests, http.StatusServiceUnavailable:
			// waited its 10 s in turn in vain: a slow machine, or the race detector
		default:
			t.Errorf("render %d = %d, want 200, or 429 or 503 after its wait", i, code)
		}
	}
	if rendered < 8 {
		t.Errorf("%d of 256 renders answered 200, want at least the slots' 8", rendered)
	}
	if slots := int64(max(8, 4*runtime.GOMAXPROCS(0))); running.Load() > slots {
		t.Errorf("%d renders ran at once, want at most the large lane's %d slots", running.Load(), slots)
	}
	if waiting.Load() == 0 {
		t.Error("no render ever waited for its turn: the 256 renders were not queued")
	}
	t.Logf("%d rendered; at most %d renders at once, %d waiting", rendered, running.Load(), waiting.Load())
}

// stalledReader is a client that reads nothing of its answer until let
// go: its first Write blocks, as a full socket's does.
type stalledReader struct {
	header  http.Header
	writing chan struct{} // closed at the first Write
	letGo   chan struct{}
	once    sync.Once
	code    int
}

func newStalledReader() *stalledReader {
	return &stalledReader{header: http.Header{}, writing: make(chan struct{}), letGo: make(chan struct{})}
}

func (w *stalledReader) Header() http.Header  { return w.header }
func (w *stalledReader) WriteHeader(code int) { w.code = code }
func (w *stalledReader) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.writing) })
	<-w.letGo
	return len(p), nil
}

// TestSlowReaderHoldsOnlyItsOwnTurn: an answer rendered in its turn is sent
// after the server's slot is given back, so a client that reads slowly
// holds no slot of the others; but it holds its own turn until its answer
// is sent, so that one address with many connections that read nothing
// keeps a rendered page for one of them, not for each (attack: 480
// connections of one address keeping 2.5 GB of editor pages).
func TestSlowReaderHoldsOnlyItsOwnTurn(t *testing.T) {
	t.Parallel()
	srv := limitedServer(t, server.Limits{})
	get := func(addr string, w http.ResponseWriter) {
		req := httptest.NewRequest(http.MethodGet, "/lab?from=paused-worker", nil)
		req.RemoteAddr = addr
		srv.ServeHTTP(w, req)
	}
	stalled := newStalledReader()
	first := make(chan struct{})
	go func() { defer close(first); get("198.51.100.20:40000", stalled) }()
	select {
	case <-stalled.writing:
	case <-time.After(10 * time.Second):
		t.Fatal("the stalled client's page was never written")
	}
	// Its second request waits for its own turn.
	second := make(chan int, 1)
	go func() {
		rec := httptest.NewRecorder()
		get("198.51.100.20:40001", rec)
		second <- rec.Code
	}()
	// Another client, of another network, is served at once.
	done := make(chan int, 1)
	go func() {
		rec := httptest.NewRecorder()
		get("203.0.113.30:40000", rec)
		done <- rec.Code
	}()
	select {
	case code := <-done:
		if code != http.StatusOK {
			t.Errorf("another client's editor = %d, want 200", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("another client waited behind a stalled reader")
	}
	select {
	case code := <-second:
		t.Fatalf("the stalled client's second page = %d while its first is unread, want it to wait its turn", code)
	case <-time.After(300 * time.Millisecond):
	}
	close(stalled.letGo)
	<-first
	select {
	case code := <-second:
		if code != http.StatusOK {
			t.Errorf("the stalled client's second page = %d once the first was read, want 200", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stalled client's second page never came once the first was read")
	}
}
