//go:build soak

package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"fencelab/views/paths"
)

var (
	killRounds = flag.Int("kill9.rounds", 5, "kill -9 rounds")
	killSavers = flag.Int("kill9.savers", 64, "clients saving at once in each round")
)

// TestKill9 saves from many clients at once, kills the server with SIGKILL
// mid-load, restarts it on the same file, and checks that every save that
// was answered 201 is there: group commit answers only after the commit.
//
//	go test -tags soak -run TestKill9 -v ./cmd/fencelab
func TestKill9(t *testing.T) {
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	db := filepath.Join(dir, "kill9.db")
	var acked []string
	for round := range *killRounds {
		srv := startServer(t, bin, db)
		ids := saveUntilKilled(t, srv, round)
		acked = append(acked, ids...)
		srv = startServer(t, bin, db)
		lost := missing(t, srv.base, acked)
		srv.stop(syscall.SIGTERM)
		t.Logf("round %d: %d saves acknowledged before kill -9 (%d in all), %d lost", round+1, len(ids), len(acked), len(lost))
		if len(lost) > 0 {
			t.Errorf("round %d: %d acknowledged saves lost after kill -9, such as %v", round+1, len(lost), lost[:min(5, len(lost))])
		}
	}
	if len(acked) == 0 {
		t.Fatal("no save was acknowledged: nothing was tested")
	}
}

// saveUntilKilled runs the savers, kills the server after 1-3 s, and
// returns the ids of the saves answered 201.
func saveUntilKilled(t *testing.T, srv *child, round int) []string {
	client := &http.Client{Timeout: 10 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: *killSavers}}
	var mu sync.Mutex
	var ids []string
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := range *killSavers {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				body := scenarioWithTitle(t, fmt.Sprintf("kill9 r%d c%d n%d", round, g, i))
				resp, err := client.Post(srv.base+"/api/runs", "application/json", bytes.NewReader(body))
				if err != nil {
					continue // killed mid-request: not acknowledged
				}
				var saved struct{ ID string }
				err = json.NewDecoder(resp.Body).Decode(&saved)
				resp.Body.Close()
				if resp.StatusCode == http.StatusCreated && err == nil {
					mu.Lock()
					ids = append(ids, saved.ID)
					mu.Unlock()
				}
			}
		})
	}
	time.Sleep(time.Second + time.Duration(rand.Int64N(int64(2*time.Second))))
	srv.stop(syscall.SIGKILL)
	close(stop)
	wg.Wait()
	return ids
}

// missing returns the ids that the restarted server does not have.
func missing(t *testing.T, base string, ids []string) []string {
	var lost []string
	for _, id := range ids {
		resp, err := http.Get(base + paths.APIRunPath(id))
		if err != nil {
			t.Fatalf("GET /api/runs/%s: %v", id, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			lost = append(lost, id)
		}
	}
	return lost
}
