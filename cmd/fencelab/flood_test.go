package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fencelab/server/store/sqlite"
)

// TestFlood is issue 24's measure, long, so it runs only when asked:
//
//	FENCELAB_FLOOD=1 go test -run TestFlood -v -timeout 10m ./cmd/fencelab
//
// One client (one forwarded address behind a trusted proxy) posts
// distinct 500-event scenarios as fast as 64 connections allow for 60 s
// (FENCELAB_FLOOD_DURATION), while 20 other clients each save a small run
// every half second. The store may grow by no more than the flooding
// client's byte budget and the others' runs allow, and the others' saves
// all succeed with a p99 under 1 s. The serve flags' variables apply
// (FENCELAB_CLIENT_SAVE_BYTES=0 and so on measure the lab without limits).
func TestFlood(t *testing.T) {
	if testing.Short() || os.Getenv("FENCELAB_FLOOD") == "" {
		t.Skip("the flood takes a minute: set FENCELAB_FLOOD=1 to run it")
	}
	duration := envDuration("FENCELAB_FLOOD_DURATION", time.Minute)
	path := filepath.Join(t.TempDir(), "lab.db")
	lf, err := addLimitFlags(flag.NewFlagSet("flood", flag.ContinueOnError))
	if err != nil {
		t.Fatal(err)
	}
	opts := serveOptions{addr: "127.0.0.1:0", dbPath: path, maxConns: defaultMaxConns,
		trustedProxies: []string{"127.0.0.1"}, limits: lf}
	var log syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- listenAndServe(ctx, slog.New(slog.NewTextHandler(&log, nil)), opts) }()
	base := "http://" + waitForAddr(t, &log, done)
	before := storeSize(t, path)

	stop := time.Now().Add(duration)
	flood := floodFrom(base, stop)
	others := othersFrom(t, base, stop)
	fl, ot := flood(), others()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	growth := storeSize(t, path) - before
	limits := lf.limits(false)
	budget := limits.SaveBytes + int64(float64(limits.SaveBytesPerHour)*duration.Hours())
	if limits.SaveBytes <= 0 {
		budget = 0 // none: the log says 0
	}
	p99 := ot.percentile(0.99)
	t.Logf("flooding client: %d requests, %d saved (%d bytes each on average), %d refused with 429, %d with 507, %d other",
		fl.requests, fl.saved, fl.savedBytes/max(fl.saved, 1), fl.refused, fl.full, fl.other)
	t.Logf("others: %d saves, %d failed, p50 %s, p99 %s, max %s; begun after the first 5 s: p50 %s, p99 %s",
		len(ot.latencies), ot.failed, ot.percentile(0.5), p99, ot.percentile(1), percentile(ot.late, 0.5), percentile(ot.late, 0.99))
	t.Logf("store grew %.1f MiB in %s (%.2f MiB/s): the others' runs %.1f MiB, the flooding client's %.1f MiB of a budget of %.1f MiB",
		float64(growth)/(1<<20), duration, float64(growth)/(1<<20)/duration.Seconds(), float64(ot.savedBytes)/(1<<20),
		float64(fl.savedBytes)/(1<<20), float64(budget)/(1<<20))
	if limits.SaveBytes > 0 && fl.savedBytes > budget {
		t.Errorf("the flooding client saved %d bytes, over its budget of %d", fl.savedBytes, budget)
	}
	// The others' runs come on top, and pages and indexes on top of all.
	if allowed := (budget+ot.savedBytes)*5/4 + 4<<20; limits.SaveBytes > 0 && growth > allowed {
		t.Errorf("the store grew %d bytes, want at most %d (the budget and the others' runs, with a quarter more for pages and indexes)", growth, allowed)
	}
	if ot.failed > 0 || p99 > time.Second {
		t.Errorf("the other clients: %d saves failed, p99 %s; want none failed and p99 under 1 s", ot.failed, p99)
	}
}

// storeSize is the database's size once its log is folded back in.
func storeSize(t *testing.T, path string) int64 {
	t.Helper()
	db, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n, err := db.Size(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// floodTally is what the flooding client got.
type floodTally struct {
	requests, saved, refused, full, other int64
	savedBytes                            int64
}

// floodFrom starts 64 connections posting distinct 500-event scenarios
// until stop, from one forwarded address; the returned func waits for
// them and tallies.
func floodFrom(base string, stop time.Time) func() floodTally {
	var tally floodTally
	var n atomic.Int64
	var wg sync.WaitGroup
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}, Timeout: 30 * time.Second}
	for range 64 {
		wg.Go(func() {
			for time.Now().Before(stop) {
				body := bigScenario(n.Add(1))
				code, _, _ := postAs(client, base, "198.51.100.66", body)
				atomic.AddInt64(&tally.requests, 1)
				switch code {
				case http.StatusCreated:
					atomic.AddInt64(&tally.saved, 1)
				case http.StatusTooManyRequests:
					atomic.AddInt64(&tally.refused, 1)
				case http.StatusInsufficientStorage:
					atomic.AddInt64(&tally.full, 1)
				default:
					atomic.AddInt64(&tally.other, 1)
				}
			}
		})
	}
	return func() floodTally {
		wg.Wait()
		tally.savedBytes = tally.saved * storedBytes(base, bigScenario(1))
		return tally
	}
}

// storedBytes is what the run of body takes, as the budget counts it:
// the scenario and its trace, read back from the server.
func storedBytes(base string, body []byte) int64 {
	_, _, id := postAs(http.DefaultClient, base, "192.0.2.250", body)
	resp, err := http.Get(base + "/api/runs/" + id)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var run struct{ Scenario, Trace json.RawMessage }
	json.NewDecoder(resp.Body).Decode(&run)
	return int64(len(run.Scenario) + len(run.Trace))
}

// bigScenario is a valid scenario of 500 events, distinct for each n.
// Made once and retitled, so that the flooding client spends little of
// the cores the server needs.
func bigScenario(n int64) []byte {
	return bytes.Replace(bigTemplate(), []byte("flood #"), fmt.Appendf(nil, "flood %d", n), 1)
}

var bigTemplate = sync.OnceValue(func() []byte {
	events := make([]map[string]string, 0, 500)
	for i := range 125 {
		a := []string{"A", "B"}[i%2]
		events = append(events, map[string]string{"actor": a, "kind": "acquire"},
			map[string]string{"actor": a, "kind": "write", "value": fmt.Sprintf("v%d", i)},
			map[string]string{"actor": a, "kind": "read"}, map[string]string{"actor": a, "kind": "expire"})
	}
	b, _ := json.Marshal(map[string]any{"version": 1, "title": "flood #", "events": events})
	return b
})

// postAs saves body as the client at addr (X-Forwarded-For, which the
// server believes from 127.0.0.1), and returns the status, the time it
// took and the run's id.
func postAs(client *http.Client, base, addr string, body []byte) (int, time.Duration, string) {
	req, _ := http.NewRequest(http.MethodPost, base+"/api/runs", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", addr)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, time.Since(start), ""
	}
	defer resp.Body.Close()
	var saved struct{ ID string }
	if resp.StatusCode == http.StatusCreated {
		json.NewDecoder(resp.Body).Decode(&saved)
	} else {
		io.Copy(io.Discard, resp.Body)
	}
	return resp.StatusCode, time.Since(start), saved.ID
}

// othersTally is what the well-behaved clients got.
type othersTally struct {
	latencies  []time.Duration
	late       []time.Duration // of the saves begun after the first 5 s
	failed     int
	savedBytes int64
}

func (o othersTally) percentile(p float64) time.Duration { return percentile(o.latencies, p) }

func percentile(latencies []time.Duration, p float64) time.Duration {
	if len(latencies) == 0 {
		return 0
	}
	l := slices.Clone(latencies)
	slices.Sort(l)
	return l[min(len(l)-1, int(p*float64(len(l))))]
}

// othersFrom starts 20 clients, each at its own address saving a small
// distinct run every half second until stop.
func othersFrom(t *testing.T, base string, stop time.Time) func() othersTally {
	titled := retitler(t)
	start := time.Now()
	var mu sync.Mutex
	var tally othersTally
	var wg sync.WaitGroup
	for c := range 20 {
		wg.Go(func() {
			for i := 0; time.Now().Before(stop); i++ {
				body := titled(fmt.Sprintf("client %d run %d", c, i))
				begun := time.Now()
				code, took, _ := postAs(http.DefaultClient, base, fmt.Sprintf("203.0.113.%d", c+1), body)
				mu.Lock()
				tally.latencies = append(tally.latencies, took)
				if begun.Sub(start) > 5*time.Second {
					tally.late = append(tally.late, took)
				}
				if code != http.StatusCreated {
					tally.failed++
				}
				mu.Unlock()
				time.Sleep(500 * time.Millisecond)
			}
		})
	}
	return func() othersTally {
		wg.Wait()
		tally.savedBytes = int64(len(tally.latencies)-tally.failed) * storedBytes(base, titled("client 0 run 0"))
		return tally
	}
}
