package main

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"
)

// TestServeCapsConnections holds --max-conns idle keep-alive connections
// open: one more is not served until one of them closes, so a crowd of
// idle connections cannot take every file descriptor.
func TestServeCapsConnections(t *testing.T) {
	t.Parallel()
	var log syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	opts := serveOptions{addr: "127.0.0.1:0", dbPath: filepath.Join(t.TempDir(), "lab.db"), maxConns: 2}
	go func() { done <- listenAndServe(ctx, slog.New(slog.NewTextHandler(&log, nil)), opts) }()
	defer func() { cancel(); <-done }()
	addr := waitForAddr(t, &log, done)

	var held []net.Conn
	for range opts.maxConns {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if code := get(t, conn, 5*time.Second); code != http.StatusOK {
			t.Fatalf("GET /healthz on a held connection: status %d, want 200", code)
		}
		held = append(held, conn)
	}
	extra, err := net.Dial("tcp", addr) // the kernel queues it; the server does not accept it
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	// A server that wrongly serves it answers within a millisecond or two
	// on loopback; -short waits 50 ms for that answer, the full run 300.
	silence := 300 * time.Millisecond
	if testing.Short() {
		silence = 50 * time.Millisecond
	}
	if code := get(t, extra, silence); code != 0 {
		t.Fatalf("GET on connection %d of at most %d: status %d, want no answer while the others are open", opts.maxConns+1, opts.maxConns, code)
	}
	held[0].Close()
	if code := readStatus(t, extra, 5*time.Second); code != http.StatusOK {
		t.Errorf("the queued connection once one closed: status %d, want 200", code)
	}
}

// get sends GET /healthz on conn and reads the status, 0 if none came in time.
func get(t *testing.T, conn net.Conn, wait time.Duration) int {
	t.Helper()
	if _, err := fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: lab\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	return readStatus(t, conn, wait)
}

func readStatus(t *testing.T, conn net.Conn, wait time.Duration) int {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(wait))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}
