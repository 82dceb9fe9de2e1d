package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The attacks on the server's connections, memory and cores: keep-alives
// (F2), imports (F3), full-size pictures (F4), slow and silent clients.

// attackKeepAlives (F2): 2,100 keep-alive connections from one address,
// each sending GET /healthz every 15 s, for 32 s. No more than the
// client's share (a quarter of --max-conns, 512) may be held, and the
// polite client must get every answer. (Before: 0 answers of 6.)
func attackKeepAlives(t *testing.T, l *labProc) string {
	const share = 512
	answered, closed, silent := keepAlives(l, []string{"127.0.0.2"}, 2100)
	if answered > share {
		t.Errorf("%d keep-alive connections of one address were served, over its share of %d", answered, share)
	}
	return fmt.Sprintf("of 2100 connections from one address, %d held and answered, %d closed by the server, %d never answered",
		answered, closed, silent)
}

// attackKeepAlivesMany: 8 addresses × 300 keep-alive connections (2,400,
// past --max-conns 2048, each address within its share), a GET /healthz
// each every 15 s, for 32 s: a newcomer closes the oldest idle connection
// of whoever holds most, so the polite client is still served.
func attackKeepAlivesMany(t *testing.T, l *labProc) string {
	answered, closed, silent := keepAlives(l, addrsIn("127.0.12.%d", 8), 300)
	return fmt.Sprintf("of 8 × 300 connections, %d answered at first, %d closed by the server, %d never answered", answered, closed, silent)
}

// keepAlives opens per connections from each of addrs at once, each
// sending GET /healthz every 15 s for 32 s, and counts those answered at
// first, those the server closed and those it never answered.
func keepAlives(l *labProc, addrs []string, per int) (answered, closed, silent int64) {
	var a, c, s atomic.Int64
	stop := time.Now().Add(32 * time.Second)
	eachAt(len(addrs)*per, func(i int) {
		conn, err := dialAs(addrs[i/per], l.addr, 10*time.Second)
		if err != nil {
			c.Add(1)
			return
		}
		defer conn.Close()
		br := bufio.NewReader(conn)
		for first := true; time.Now().Before(stop); first = false {
			code, err := rawGet(conn, br, "/healthz", 10*time.Second)
			var ne net.Error
			switch {
			case errors.As(err, &ne) && ne.Timeout():
				s.Add(1)
				return
			case err != nil || code != http.StatusOK:
				c.Add(1)
				return
			case first:
				a.Add(1)
			}
			time.Sleep(min(15*time.Second, time.Until(stop)))
		}
	})
	return a.Load(), c.Load(), s.Load()
}

// importForm is the import page's form with the walkthrough's logs and
// mapping, the scheduler's log padded with heartbeat lines to about size
// bytes (as server/import_memory_test.go makes it), and skew if not empty.
func importForm(t *testing.T, size int, skew string) ([]byte, string) {
	t.Helper()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "docs", "import", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if skew != "" {
		w.WriteField("skew", skew)
	}
	for _, name := range []string{"worker-1.log", "worker-2.log", "storage.csv"} {
		w.WriteField("name", name)
		w.WriteField("log", read(name))
	}
	m, _ := w.CreateFormFile("mapfile", "mapping.json")
	m.Write([]byte(read("mapping.json")))
	u, _ := w.CreateFormFile("upload", "scheduler.jsonl")
	sched := read("scheduler.jsonl")
	head, rest, _ := strings.Cut(sched, "\n")
	u.Write([]byte(head + "\n"))
	const heartbeat = `{"ts":"2026-11-30T03:00:00.010Z","host":"scheduler","level":"debug","msg":"heartbeat","leases":1}` + "\n"
	if pad := size - buf.Len() - len(sched) - 400; pad > 0 {
		u.Write([]byte(strings.Repeat(heartbeat, pad/len(heartbeat))))
	}
	u.Write([]byte(rest))
	w.Close()
	return buf.Bytes(), w.FormDataContentType()
}

// postImports posts body to /import n times at once, the i-th from
// from(i), each on a connection of its own, and counts the answers (0:
// the connection closed without one).
func postImports(l *labProc, n int, from func(i int) string, body []byte, ctype string) *statuses {
	var got statuses
	eachAt(n, func(i int) {
		c := clientFrom(from(i), 1, false)
		c.Timeout = 60 * time.Second
		c.Transport.(*http.Transport).DisableKeepAlives = true
		code, _, _ := do(c, http.MethodPost, l.base+"/import", bytes.NewReader(body), "Content-Type", ctype)
		got.add(code)
	})
	return &got
}

// attackImports (F3): 128 uploads of 4 MiB at once to /import from one
// address, then 128 from 128 addresses. Each is answered, refused (429
// from one address, 503 from many) or closed; RSS stays under 1 GB and
// the polite p99 under 1 s. (Before: RSS 24 MB to 3.78 GB.)
func attackImports(t *testing.T, l *labProc) string {
	body, ctype := importForm(t, 4<<20-4096, "")
	one := postImports(l, 128, func(int) string { return "127.0.2.1" }, body, ctype)
	many := postImports(l, 128, func(i int) string { return fmt.Sprintf("127.0.3.%d", i+1) }, body, ctype)
	for _, g := range []struct {
		what string
		got  *statuses
	}{{"one address", one}, {"128 addresses", many}} {
		if bad := g.got.only(http.StatusOK, http.StatusTooManyRequests, http.StatusServiceUnavailable, 0); bad != "" {
			t.Errorf("uploads from %s got %s, want only 200, 429, 503 or a closed connection", g.what, bad)
		}
		if g.got.get(http.StatusOK) == 0 {
			t.Errorf("no upload from %s was imported: %s", g.what, g.got)
		}
	}
	return fmt.Sprintf("%d-byte uploads: from one address %s; from 128 addresses %s", len(body), one, many)
}

// attackPictures (F4): a 500-event run saved, then 16 clients at once ask
// for its full-size PNG for 20 s, each time with junk or new ?p= and ?d=
// values and another Host. RSS stays under 1 GB, the polite p99 under 1 s.
// (Before: RSS 236 MB to 2.05 GB.)
func attackPictures(t *testing.T, l *labProc) string {
	c := clientFrom("127.0.0.2", 16, false)
	saved := saveBig(t, l, 1)
	policies := []string{"unfenced", "fenced", "fenced-strict", "cas", "unfenced,fenced", "fenced,unfenced", "cas,fenced,unfenced"}
	var got statuses
	var n atomic.Int64
	var mu sync.Mutex
	var slowest time.Duration
	until(20*time.Second, 16, func(int) {
		i := n.Add(1)
		q := fmt.Sprintf("size=full&p=junk%d&d=junk%d", i, i)
		if i%2 == 0 {
			q = fmt.Sprintf("size=full&p=%s&d=%s", policies[i%int64(len(policies))], policies[(i/2)%int64(len(policies))])
		}
		start := time.Now()
		code, _, _ := do(c, http.MethodGet, l.base+"/r/"+saved.ID+".png?"+q, nil, "Host", fmt.Sprintf("h%d.example", i))
		mu.Lock()
		slowest = max(slowest, time.Since(start))
		mu.Unlock()
		got.add(code)
	})
	if bad := got.only(http.StatusOK, http.StatusBadRequest, http.StatusNotFound, http.StatusServiceUnavailable); bad != "" {
		t.Errorf("the pictures got %s, want only 200, 400, 404 or 503", bad)
	}
	return fmt.Sprintf("%d full-size PNGs of a 500-event run asked (%s), slowest %s", got.total(), &got, slowest.Round(time.Millisecond))
}

// holdConns keeps per connections from each of addrs open for d, each
// sending a request's header a byte every 2 s (trickle) or nothing, and
// opening another at once whenever the server closes one: it counts the
// connections opened and those the server closed, and after how long.
func holdConns(l *labProc, addrs []string, per int, d time.Duration, trickle bool) string {
	var opened, refused, closedEarly atomic.Int64
	var mu sync.Mutex
	var heldFor []time.Duration
	stop := time.Now().Add(d)
	request := "GET /healthz HTTP/1.1\r\nHost: lab\r\nX-Slow: " + strings.Repeat("a", 200) + "\r\n\r\n"
	hold := func(from string) {
		conn, err := dialAs(from, l.addr, 10*time.Second)
		if err != nil {
			refused.Add(1)
			time.Sleep(100 * time.Millisecond)
			return
		}
		opened.Add(1)
		defer conn.Close()
		start := time.Now()
		closed := make(chan struct{})
		go func() { // the server closing shows as a read ending
			defer close(closed)
			conn.SetReadDeadline(stop)
			var b [512]byte
			for {
				if _, err := conn.Read(b[:]); err != nil {
					var ne net.Error
					if !(errors.As(err, &ne) && ne.Timeout()) {
						closedEarly.Add(1)
						mu.Lock()
						heldFor = append(heldFor, time.Since(start))
						mu.Unlock()
					}
					return
				}
			}
		}()
		for k := 0; ; k++ {
			wait := time.Until(stop)
			if trickle {
				wait = min(wait, 2*time.Second)
			}
			select {
			case <-closed:
				return
			case <-time.After(wait):
			}
			if time.Now().After(stop) {
				<-closed
				return
			}
			if _, err := conn.Write([]byte{request[k%len(request)]}); err != nil {
				<-closed
				return
			}
		}
	}
	until(d, len(addrs)*per, func(i int) { hold(addrs[i/per]) })
	return fmt.Sprintf("%d connections kept open from %d addresses for %s: %d opened in all (%d refused), %d closed by the server, each after %s (median)",
		len(addrs)*per, len(addrs), d, opened.Load(), refused.Load(), closedEarly.Load(), percentile(heldFor, 0.5).Round(100*time.Millisecond))
}

// attackSlowloris: 8 addresses × 300 connections each send a request's
// header a byte every 2 s for 25 s; the polite p99 stays under 1 s.
// (Before: 1.9–4.5 s.)
func attackSlowloris(t *testing.T, l *labProc) string {
	return holdConns(l, addrsIn("127.0.7.%d", 8), 300, 25*time.Second, true)
}

// attackSilent: 8 addresses × 300 connections connect and send nothing
// for 25 s; the polite p99 stays under 1 s.
func attackSilent(t *testing.T, l *labProc) string {
	return holdConns(l, addrsIn("127.0.8.%d", 8), 300, 25*time.Second, false)
}

// addrsIn is n addresses of pattern, 1 to n.
func addrsIn(pattern string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(pattern, i+1)
	}
	return out
}
