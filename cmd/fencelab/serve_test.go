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
		case <-time.After(2 * time.Millisecond):
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

// TestAccessLog: stderr gets the lines beside the program's log, off
// writes none, and a path is a file appended to, created if absent. Lines
// are held for a moment and written in one go, and all of them by the
// close.
func TestAccessLog(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	access, closeAccess, err := openAccessLog("stderr", &stderr)
	if err != nil || access == nil {
		t.Fatalf("openAccessLog(stderr) = %v, %v", access, err)
	}
	access.Info("request", "path", "/a")
	access.Info("request", "path", "/b")
	closeAccess()
	if got := stderr.String(); strings.Count(got, "\n") != 2 || !strings.Contains(got, "path=/a") || !strings.Contains(got, "path=/b") {
		t.Errorf("access log on stderr = %q, want both lines", got)
	}
	if got, _, err := openAccessLog("off", &stderr); err != nil || got != nil {
		t.Errorf("openAccessLog(off) = %v, %v; want none", got, err)
	}
	stderr.Reset()
	path := filepath.Join(t.TempDir(), "access.log")
	if err := os.WriteFile(path, []byte("kept\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	access, closeAccess, err = openAccessLog(path, &stderr)
	if err != nil {
		t.Fatalf("openAccessLog(%s): %v", path, err)
	}
	access.Info("request", "path", "/r/x")
	deadline := time.Now().Add(10 * batchDelay)
	for b, _ := os.ReadFile(path); !strings.Contains(string(b), "path=/r/x"); b, _ = os.ReadFile(path) {
		if time.Now().After(deadline) {
			t.Fatalf("access log file %q: the line is not written %v later", b, 10*batchDelay)
		}
		time.Sleep(batchDelay / 10)
	}
	access.Info("request", "path", "/r/y")
	closeAccess()
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), "kept\n") || !strings.Contains(string(b), "path=/r/y") || stderr.Len() != 0 {
		t.Errorf("access log file = %q, stderr = %q; want the lines appended to the file only", b, stderr.String())
	}
	if _, _, err := openAccessLog(filepath.Join(t.TempDir(), "no", "such", "dir.log"), &stderr); err == nil {
		t.Errorf("openAccessLog(a path in a missing directory) = nil error")
	}
}

// TestBatchWriter: lines are held until the batch is full, never split,
// and one longer than a batch is written alone, after those held.
func TestBatchWriter(t *testing.T) {
	var out bytes.Buffer
	b := newBatchWriter(&out, time.Hour) // no flush by time during the test
	defer b.Close()
	line := []byte(strings.Repeat("x", 99) + "\n")
	var want bytes.Buffer
	for range batchBytes / len(line) {
		b.Write(line)
		want.Write(line)
	}
	if out.Len() != 0 {
		t.Fatalf("%d bytes written before the batch is full", out.Len())
	}
	b.Write(line) // does not fit: the batch goes first
	if !bytes.Equal(out.Bytes(), want.Bytes()) {
		t.Fatalf("after a full batch: %d bytes written, want %d", out.Len(), want.Len())
	}
	want.Write(line)
	long := append(bytes.Repeat([]byte("y"), batchBytes), '\n')
	b.Write(long)
	want.Write(long)
	if !bytes.Equal(out.Bytes(), want.Bytes()) {
		t.Errorf("a line longer than a batch: %d bytes written, want %d in order", out.Len(), want.Len())
	}
}
