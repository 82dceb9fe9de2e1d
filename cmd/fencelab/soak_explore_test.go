//go:build soak

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"fencelab/views/paths"
)

// crowdScenario is eight workers that each acquire, write, expire, send
// and have it delivered: tens of millions of states, so an exploration
// runs to the state cap or the deadline.
func crowdScenario(t *testing.T, title string) []byte {
	t.Helper()
	var events []map[string]any
	for w := range 8 {
		a := fmt.Sprintf("W%d", w)
		events = append(events,
			map[string]any{"actor": a, "kind": "acquire"},
			map[string]any{"actor": a, "kind": "write", "value": "x"},
			map[string]any{"actor": a, "kind": "expire"},
			map[string]any{"actor": a, "kind": "send", "id": a, "value": "y"},
			map[string]any{"kind": "deliver", "request": a})
	}
	b, err := json.Marshal(map[string]any{"version": 1, "title": title, "events": events})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestExploreCaps keeps two explorations at the caps (1,000,000 states,
// 10 s) running, from two clients behind a trusted proxy, while a reader
// loads pages; it prints the pages' latency and the server's memory, and
// fails if the pages' p99 passes 50 ms.
//
//	go test -tags soak -run TestExploreCaps -v -timeout 5m ./cmd/fencelab
func TestExploreCaps(t *testing.T) {
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	srv := startServer(t, bin, filepath.Join(dir, "caps.db"), "--trusted-proxy", "127.0.0.1")
	defer srv.stop(syscall.SIGTERM)
	run := saveOne(t, srv.base, "caps run")
	rssBefore, _ := rssKB(srv.cmd.Process.Pid)

	deadline := time.Now().Add(*soakDuration / 2)
	var wg sync.WaitGroup
	var mu sync.Mutex
	explored := map[int]int{}
	for c := range 2 {
		wg.Go(func() {
			for n := 0; time.Now().Before(deadline); n++ {
				req, _ := http.NewRequest("POST", srv.base+"/api/explore?budget=1000000&deadline=10s",
					bytes.NewReader(crowdScenario(t, fmt.Sprintf("crowd %d %d", c, n))))
				req.Header.Set("X-Forwarded-For", fmt.Sprintf("10.0.0.%d", c+1))
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Errorf("explore: %v", err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				explored[resp.StatusCode]++
				mu.Unlock()
			}
		})
	}
	time.Sleep(500 * time.Millisecond) // both explorations under way
	var pages []time.Duration
	for i := 0; time.Now().Before(deadline); i++ {
		target := srv.base + "/scenarios/paused-worker"
		if i%2 == 1 {
			target = srv.base + paths.RunPath(run)
		}
		start := time.Now()
		resp, err := http.Get(target)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		pages = append(pages, time.Since(start))
		time.Sleep(20 * time.Millisecond)
	}
	_, peak := rssKB(srv.cmd.Process.Pid)
	wg.Wait()
	slices.Sort(pages)
	p99 := pages[(len(pages)-1)*99/100]
	fmt.Printf("pages beside two explorations at the caps: %d requests, p50 %s, p99 %s, max %s; explorations by status %v; RSS %d MB before, %d MB at peak\n",
		len(pages), pct(pages, 50), pct(pages, 99), pct(pages, 100), explored, rssBefore/1024, peak/1024)
	if p99 > 50*time.Millisecond {
		t.Errorf("pages' p99 beside two explorations at the caps = %v, want under 50 ms", p99)
	}
}
