package main

import (
	"bytes"
	"io"
	"log/slog"
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

// TestAccessLog: stderr shares the program's log, off writes none, and a
// path is a file appended to, created if absent.
func TestAccessLog(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	if got, _, err := openAccessLog("stderr", log); err != nil || got != log {
		t.Errorf("openAccessLog(stderr) = %v, %v; want the program's log", got, err)
	}
	if got, _, err := openAccessLog("off", log); err != nil || got != nil {
		t.Errorf("openAccessLog(off) = %v, %v; want none", got, err)
	}
	path := filepath.Join(t.TempDir(), "access.log")
	if err := os.WriteFile(path, []byte("kept\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	access, closeAccess, err := openAccessLog(path, log)
	if err != nil {
		t.Fatalf("openAccessLog(%s): %v", path, err)
	}
	access.Info("request", "path", "/r/x")
	closeAccess()
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), "kept\n") || !strings.Contains(string(b), "path=/r/x") || buf.Len() != 0 {
		t.Errorf("access log file = %q, program log = %q; want the line appended to the file only", b, buf.String())
	}
	if _, _, err := openAccessLog(filepath.Join(t.TempDir(), "no", "such", "dir.log"), log); err == nil {
		t.Errorf("openAccessLog(a path in a missing directory) = nil error")
	}
}
