package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The attacks of a second, independent look at the server with its
// defaults (2026-12-02): busy connections of one network, slow readers of
// large pages, and long URIs in the access log.

// attackBusyNetwork: five addresses of one /24, 512 connections each,
// each sending a request body a byte a second and opening another at once
// whenever the server closes one, for 30 s; meanwhile a visitor of
// another network opens a fresh connection every 0.5 s. Busy connections
// are never closed for another, so without a network's share these held
// every connection and the visitor got 3 answers in 35 s.
func attackBusyNetwork(t *testing.T, l *labProc) string {
	const d = 30 * time.Second
	var opened atomic.Int64
	stop := time.Now().Add(d)
	head := "POST /api/runs HTTP/1.1\r\nHost: lab\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n"
	var fresh, answered atomic.Int64
	var slowest atomic.Int64
	done := make(chan struct{})
	go func() { // the visitor
		defer close(done)
		for time.Now().Before(stop) {
			start := time.Now()
			fresh.Add(1)
			if conn, err := dialAs("127.0.14.1", l.addr, 5*time.Second); err == nil {
				conn.SetDeadline(time.Now().Add(5 * time.Second))
				fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: lab\r\nConnection: close\r\n\r\n")
				if res, err := http.ReadResponse(bufio.NewReader(conn), nil); err == nil && res.StatusCode == http.StatusOK {
					answered.Add(1)
					slowest.Store(max(slowest.Load(), int64(time.Since(start))))
				}
				conn.Close()
			}
			time.Sleep(500 * time.Millisecond)
		}
	}()
	until(d, 5*512, func(i int) {
		conn, err := dialAs(fmt.Sprintf("127.0.13.%d", i/512+1), l.addr, 10*time.Second)
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			return
		}
		opened.Add(1)
		defer conn.Close()
		if _, err := conn.Write([]byte(head)); err != nil {
			return
		}
		for time.Now().Before(stop) {
			time.Sleep(time.Second)
			if _, err := conn.Write([]byte{' '}); err != nil {
				return // closed by the server
			}
		}
	})
	<-done
	if answered.Load() < fresh.Load()-1 {
		t.Errorf("the visitor's fresh connections: %d of %d answered, want all (one may meet the end)", answered.Load(), fresh.Load())
	}
	return fmt.Sprintf("5 addresses of one /24 × 512 busy connections for %s, %d opened in all; a visitor of another network: "+
		"%d of %d fresh connections answered, slowest %s", d, opened.Load(), answered.Load(), fresh.Load(),
		time.Duration(slowest.Load()).Round(time.Millisecond))
}

// attackSlowReaders: 480 connections of one address ask for the editor of
// a saved 500-event run (2.3 MB a page, uncompressed) with a receive
// buffer of 2 KB, read the status line and then nothing for 30 s. An
// answer waits for its reader with its client's turns held, so one is
// kept, not 480. (Before: RSS 122 MB → 2.47 GB.)
func attackSlowReaders(t *testing.T, l *labProc) string {
	saved := saveBig(t, l, 2)
	var got statuses
	eachAt(480, func(i int) {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.15.1")}, Timeout: 10 * time.Second,
			Control: func(_, _ string, rc syscall.RawConn) error {
				return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 2048) })
			}}
		conn, err := d.Dial("tcp", l.addr)
		if err != nil {
			got.add(0)
			return
		}
		defer conn.Close()
		fmt.Fprintf(conn, "GET /lab?from=r/%s HTTP/1.1\r\nHost: lab\r\n\r\n", saved.ID)
		conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		line := make([]byte, 12) // "HTTP/1.1 200"
		if _, err := conn.Read(line); err != nil {
			got.add(0)
		} else {
			var status int
			fmt.Sscanf(string(line[9:]), "%d", &status)
			got.add(status)
		}
		time.Sleep(30 * time.Second)
	})
	return fmt.Sprintf("480 connections of one address asking for the editor of a 500-event run and reading nothing: %s", &got)
}

// attackLongURIs: 8 keep-alive connections ask for /healthz with a query
// of 30 KB for 10 s; the access log (on stderr, the server's log file
// here) keeps 512 bytes of each. (Before: 560 MiB of log in 10 s.)
func attackLongURIs(t *testing.T, l *labProc) string {
	c := clientFrom("127.0.16.1", 8, false)
	target := l.base + "/healthz?x=" + strings.Repeat("%22", 10000)
	var got statuses
	until(10*time.Second, 8, func(int) {
		code, _, _ := do(c, http.MethodGet, target, nil)
		got.add(code)
	})
	time.Sleep(300 * time.Millisecond) // the access log's last batch
	info, err := os.Stat(l.logPath)
	if err != nil {
		t.Fatalf("the server's log: %v", err)
	}
	perLine := info.Size() / int64(max(1, got.total()))
	if perLine > 1024 {
		t.Errorf("%d bytes of access log a request, want under 1 KiB", perLine)
	}
	return fmt.Sprintf("%d requests of a 30 KB URI in 10 s (%s): the log %.1f MB, %d bytes a request",
		got.total(), &got, float64(info.Size())/1e6, perLine)
}

// saveBig saves bigScenario(n), a run of 500 events, on l from 127.0.0.2.
func saveBig(t *testing.T, l *labProc, n int64) struct{ ID string } {
	t.Helper()
	code, body, _ := do(clientFrom("127.0.0.2", 1, false), http.MethodPost, l.base+"/api/runs", bytes.NewReader(bigScenario(n)),
		"Content-Type", "application/json")
	var saved struct{ ID string }
	if json.Unmarshal([]byte(body), &saved); code != http.StatusCreated {
		t.Fatalf("save of a 500-event run = %d %s", code, body)
	}
	return saved
}
