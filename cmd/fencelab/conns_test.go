package main

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startLimited serves a fresh lab with opts on a loopback port and returns
// its address.
func startLimited(t *testing.T, opts serveOptions) string {
	t.Helper()
	var log syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	opts.addr, opts.dbPath = "127.0.0.1:0", filepath.Join(t.TempDir(), "lab.db")
	go func() { done <- listenAndServe(ctx, slog.New(slog.NewTextHandler(&log, nil)), opts) }()
	t.Cleanup(func() { cancel(); <-done })
	return waitForAddr(t, &log, done)
}

// dialFrom connects to addr from the loopback address from (127.0.0.N).
func dialFrom(t *testing.T, from, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// silence is how long a test waits to be sure no answer comes: a server
// that wrongly answers does so within a millisecond or two on loopback.
func silence() time.Duration {
	if testing.Short() {
		return 50 * time.Millisecond
	}
	return 300 * time.Millisecond
}

// TestServeCapsConnections holds --max-conns idle keep-alive connections
// open from two clients, one each: one more is not served until one of
// them closes, so a crowd of idle connections cannot take every file
// descriptor, and none is closed for a client that holds as many.
func TestServeCapsConnections(t *testing.T) {
	t.Parallel()
	addr := startLimited(t, serveOptions{maxConns: 2})
	var held []net.Conn
	for _, from := range []string{"127.0.1.1", "127.0.2.2"} { // two networks, within their shares
		conn := dialFrom(t, from, addr)
		if code := get(t, conn, 5*time.Second); code != http.StatusOK {
			t.Fatalf("GET /healthz on a held connection: status %d, want 200", code)
		}
		held = append(held, conn)
	}
	extra := dialFrom(t, "127.0.2.2", addr)
	if code := get(t, extra, silence()); code != 0 {
		t.Fatalf("GET on connection 3 of at most 2: status %d, want no answer while the others are open", code)
	}
	held[0].Close()
	if code := readStatus(t, extra, 5*time.Second); code != http.StatusOK {
		t.Errorf("the queued connection once one closed: status %d, want 200", code)
	}
}

// TestServeSharesConnections: one client cannot hold more than its share
// of --max-conns (its next connection is closed at once), and when
// flooders from several addresses hold every connection idle, a polite
// client's new connection closes one of theirs and is served. (Attack
// F2: 2,100 keep-alive connections from one address left a polite client
// 0 answers of 6.)
func TestServeSharesConnections(t *testing.T) {
	t.Parallel()
	addr := startLimited(t, serveOptions{maxConns: 8, maxConnsPerClient: 4})
	hold := func(from string, n int) {
		for range n {
			if code := get(t, dialFrom(t, from, addr), 5*time.Second); code != http.StatusOK {
				t.Fatalf("flooder %s: status %d, want 200 within its share", from, code)
			}
		}
	}
	hold("127.0.1.10", 4)
	if code := get(t, dialFrom(t, "127.0.1.10", addr), 5*time.Second); code != 0 {
		t.Errorf("a connection past the client's share: status %d, want it closed", code)
	}
	hold("127.0.2.11", 4) // every connection held, idle
	for i := range 6 {
		start := time.Now()
		conn := dialFrom(t, "127.0.3.20", addr)
		code := get(t, conn, 5*time.Second)
		conn.Close()
		if code != http.StatusOK {
			t.Errorf("polite request %d of 6: status %d, want 200", i+1, code)
		} else if d := time.Since(start); d > time.Second {
			t.Errorf("polite request %d of 6 took %v, want under 1 s", i+1, d)
		}
	}
}

// TestServeSharesConnectionsByNetwork: the addresses of one network (a
// /24) hold at most half of --max-conns between them, however many they
// are, so connections that are busy (a request trickling in, never
// closed for another) cannot take every connection. (Attack: five
// addresses of one /24 trickling request bodies over 2,560 connections
// left a polite client 3 answers in 35 s.)
func TestServeSharesConnectionsByNetwork(t *testing.T) {
	t.Parallel()
	addr := startLimited(t, serveOptions{maxConns: 8, maxConnsPerClient: 2})
	busy := 0
	for i := range 4 { // four addresses of 127.0.4.0/24, two connections each
		for range 2 {
			conn := dialFrom(t, fmt.Sprintf("127.0.4.%d", i+1), addr)
			// A request begun and never finished: the connection is busy.
			fmt.Fprintf(conn, "POST /api/runs HTTP/1.1\r\nHost: lab\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{")
			conn.SetReadDeadline(time.Now().Add(silence()))
			if _, err := conn.Read(make([]byte, 1)); err != nil && strings.Contains(err.Error(), "timeout") {
				busy++ // held open by the server, waiting for the body
			}
		}
	}
	if busy != 4 {
		t.Errorf("%d busy connections of one /24 held open, want 4 (half of 8), the rest closed at once", busy)
	}
	for i := range 3 {
		start := time.Now()
		// A visitor of its own each time: a closed connection is counted
		// out only once the server has seen it close.
		conn := dialFrom(t, fmt.Sprintf("127.0.%d.1", 5+i), addr)
		code := get(t, conn, 5*time.Second)
		conn.Close()
		if code != http.StatusOK || time.Since(start) > time.Second {
			t.Errorf("polite request %d of 3 from another network: status %d after %v, want 200 at once", i+1, code, time.Since(start))
		}
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

// TestMetricsListenerBounded: the metrics listener serves at most 16
// connections at once; one more is not served until one closes. (It had
// no cap, and no idle timeout, which it now shares with the lab's own.)
func TestMetricsListenerBounded(t *testing.T) {
	t.Parallel()
	var log syncBuffer
	stop, err := serveMetrics(slog.New(slog.NewTextHandler(&log, nil)), "127.0.0.1:0",
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok\n")) }))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var addr string
	for range 100 {
		if _, rest, ok := strings.Cut(log.String(), "addr="); ok {
			addr = strings.Fields(rest)[0]
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	var held []net.Conn
	for range metricsMaxConns {
		conn := dialFrom(t, "127.0.0.1", addr)
		if code := getPath(t, conn, "/metrics", 5*time.Second); code != http.StatusOK {
			t.Fatalf("GET /metrics on a held connection: %d", code)
		}
		held = append(held, conn)
	}
	extra := dialFrom(t, "127.0.0.1", addr)
	if code := getPath(t, extra, "/metrics", silence()); code != 0 {
		t.Fatalf("connection %d of at most %d: status %d, want no answer while the others are open", metricsMaxConns+1, metricsMaxConns, code)
	}
	held[0].Close()
	if code := readStatus(t, extra, 5*time.Second); code != http.StatusOK {
		t.Errorf("the queued connection once one closed: status %d, want 200", code)
	}
}

// getPath sends GET path on conn and reads the status, 0 if none came in time.
func getPath(t *testing.T, conn net.Conn, path string, wait time.Duration) int {
	t.Helper()
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: lab\r\n\r\n", path); err != nil {
		t.Fatal(err)
	}
	return readStatus(t, conn, wait)
}

// TestServeBoundsHeaders: a request's header may hold 32 KiB, no more
// (431 beyond), so that connections sending a megabyte of header each
// cannot take the server's memory. (With Go's default of 1 MB, 2,000 of
// them took it to 3 GB before their 5 s ran out; now 138 MB.)
func TestServeBoundsHeaders(t *testing.T) {
	t.Parallel()
	addr := startLimited(t, serveOptions{maxConns: 16})
	for _, tt := range []struct {
		size int
		want int
	}{{20 << 10, http.StatusOK}, {40 << 10, http.StatusRequestHeaderFieldsTooLarge}, {1 << 20, http.StatusRequestHeaderFieldsTooLarge}} {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/healthz", nil)
		req.Header.Set("X-Padding", strings.Repeat("a", tt.size))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("a header of %d bytes: %v", tt.size, err)
			continue
		}
		res.Body.Close()
		if res.StatusCode != tt.want {
			t.Errorf("a header of %d bytes = %d, want %d", tt.size, res.StatusCode, tt.want)
		}
	}
}
