package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"fencelab/server/store/storetest"
	"fencelab/views/paths"
)

// TestTwoServersOnePostgres runs two real `fencelab serve` processes on
// one PostgreSQL, as two servers behind a load balancer: a run saved
// through one is served by the other, the same scenario saved on both at
// once gets one id, a live room's presenter on one and students on the
// other follow each other, and killing one with SIGKILL loses no save it
// acknowledged.
func TestTwoServersOnePostgres(t *testing.T) {
	dsn, _ := storetest.FreshSchema(t, storetest.PostgresURL(t))
	bin := buildFencelab(t)
	a, b := startServe(t, bin, dsn), startServe(t, bin, dsn)
	scenarioTitled := retitler(t)

	t.Run("saved on one, served by the other", func(t *testing.T) {
		id := saveRun(t, a.base, scenarioTitled("one saves, the other serves"))
		for _, path := range []string{paths.RunPath(id), paths.APIRunPath(id)} {
			if code := getStatus(t, b.base+path); code != http.StatusOK {
				t.Errorf("GET %s on the other server: %d, want 200", path, code)
			}
		}
	})

	t.Run("saved on both at once", func(t *testing.T) {
		body := scenarioTitled("both save at once")
		const n = 16
		ids := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { ids[i] = trySave([]string{a.base, b.base}[i%2], body) })
		}
		wg.Wait()
		for i := range n {
			if ids[i] == "" || ids[i] != ids[0] {
				t.Fatalf("concurrent saves of one scenario on two servers gave ids %q, want one id", ids)
			}
		}
	})

	t.Run("a live room across servers", func(t *testing.T) { testRoomAcrossServers(t, a.base, b.base) })

	t.Run("kill -9 loses nothing acknowledged", func(t *testing.T) {
		var mu sync.Mutex
		var acked []string
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				for i := 0; ; i++ {
					id := trySave(a.base, scenarioTitled(fmt.Sprintf("saver %d run %d", w, i)))
					if id == "" {
						return // the server is gone
					}
					mu.Lock()
					acked = append(acked, id)
					mu.Unlock()
				}
			})
		}
		time.Sleep(500 * time.Millisecond)
		if err := a.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		if len(acked) == 0 {
			t.Fatalf("no save was acknowledged before the kill; log:\n%s", a.log.String())
		}
		for _, id := range acked {
			if code := getStatus(t, b.base+paths.APIRunPath(id)); code != http.StatusOK {
				t.Errorf("run %s, acknowledged before the kill: GET on the other server %d, want 200", id, code)
			}
		}
		t.Logf("%d saves acknowledged before SIGKILL, all served by the other server", len(acked))
	})
}

// buildFencelab builds the command once into a temporary directory.
func buildFencelab(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fencelab")
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

type serveProcess struct {
	cmd  *exec.Cmd
	base string
	log  *syncBuffer
}

// startServe starts `fencelab serve` on a free port with the database db,
// and stops it at the end of the test.
func startServe(t *testing.T, bin, db string) *serveProcess {
	t.Helper()
	p := &serveProcess{log: &syncBuffer{}}
	p.cmd = exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--db", db, "--access-log", "off")
	p.cmd.Stderr = p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-done
	})
	p.base = "http://" + waitForAddr(t, p.log, done)
	return p
}

// retitler returns what gives the paused-worker scenario another title,
// so that each title is another run. It may be called on any goroutine.
func retitler(t *testing.T) func(title string) []byte {
	t.Helper()
	src, err := os.ReadFile("../../scenarios/paused-worker.json")
	if err != nil {
		t.Fatal(err)
	}
	return func(title string) []byte {
		var sc map[string]any
		json.Unmarshal(src, &sc) // a built-in scenario: valid JSON
		sc["title"] = title
		out, _ := json.Marshal(sc)
		return out
	}
}

func saveRun(t *testing.T, base string, body []byte) string {
	t.Helper()
	id := trySave(base, body)
	if id == "" {
		t.Fatalf("POST %s/api/runs failed", base)
	}
	return id
}

// trySave saves body and returns the run's id, or "" unless the server
// acknowledged the save with a 201.
func trySave(base string, body []byte) string {
	resp, err := http.Post(base+"/api/runs", "application/json", bytes.NewReader(body))
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var saved struct{ ID string }
	if resp.StatusCode != http.StatusCreated || json.NewDecoder(resp.Body).Decode(&saved) != nil {
		return ""
	}
	return saved.ID
}

func getStatus(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
