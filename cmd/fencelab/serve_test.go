package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a log the server writes while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var servingAddr = regexp.MustCompile(`msg=serving addr=(\S+)`)

// TestServeSavesAndShutsDown starts the real command on a free port with
// the database named by FENCELAB_DB, saves a run, and stops it with SIGTERM.
func TestServeSavesAndShutsDown(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lab.db")
	t.Setenv("FENCELAB_DB", db)
	var log syncBuffer
	done := make(chan error, 1)
	go func() { done <- run([]string{"serve", "--addr", "127.0.0.1:0"}, nil, io.Discard, &log) }()

	base := "http://" + waitForAddr(t, &log, done)
	src, err := os.ReadFile("../../scenarios/paused-worker.json")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(base+"/api/runs", "application/json", bytes.NewReader(src))
	if err != nil {
		t.Fatalf("POST /api/runs: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("POST /api/runs: status %d, want 201", resp.StatusCode)
	}

	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve after SIGTERM = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop within 10 s of SIGTERM")
	}
	if _, err := os.Stat(db); err != nil {
		t.Errorf("database file named by FENCELAB_DB: %v", err)
	}
	for _, want := range []string{"method=POST path=/api/runs status=201", "shutting down", "stopped"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
}

func waitForAddr(t *testing.T, log *syncBuffer, done <-chan error) string {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		if m := servingAddr.FindStringSubmatch(log.String()); m != nil {
			return m[1]
		}
		select {
		case err := <-done:
			t.Fatalf("serve stopped early: %v\n%s", err, log.String())
		case <-deadline:
			t.Fatalf("serve did not start:\n%s", log.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func TestServeBadFlags(t *testing.T) {
	var stderr bytes.Buffer
	err := serve([]string{"--no-such-flag"}, io.Discard, &stderr)
	if _, ok := err.(*usageError); !ok {
		t.Errorf("serve(--no-such-flag) = %v, want a usage error", err)
	}
	err = serve([]string{"extra"}, io.Discard, &stderr)
	if _, ok := err.(*usageError); !ok {
		t.Errorf("serve(extra) = %v, want a usage error", err)
	}
}
