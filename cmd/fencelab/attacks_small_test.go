package main

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The attacks on the explorer's and imports' slots, and the small ones:
// TLS, a killed backup, the metrics listener.

// attackExplorationSlots (--trusted-proxy 127.0.0.1): two clients in one
// IPv6 /64 and a third in another explore at once, each as often as it
// may, for 15 s. The two of one /64 are one client: one exploration at a
// time between them (429 for the other); the third is never refused for
// their sake (no 503). (Before: two addresses, even of one /64, held
// both slots, and a third got 503 on 11 of 12 tries.)
func attackExplorationSlots(t *testing.T, l *labProc) string {
	got, mean := exploreAs(l, []string{"2001:db8:1:1::1", "2001:db8:1:1::2", "2001:db8:2:2::1"})
	pair429 := got[0].get(http.StatusTooManyRequests) + got[1].get(http.StatusTooManyRequests)
	if mean > 500*time.Millisecond && pair429 == 0 {
		t.Errorf("two addresses of one /64 were never refused while the other explored (explorations take %s): %s; %s", mean, &got[0], &got[1])
	}
	if n := got[2].get(http.StatusServiceUnavailable); n > 0 {
		t.Errorf("the third client got 503 on %d of %d tries", n, got[2].total())
	}
	return fmt.Sprintf("explorations of %s each; one /64: %s and %s; the third client: %s", mean.Round(time.Millisecond), &got[0], &got[1], &got[2])
}

// attackExplorationTurns (--trusted-proxy 127.0.0.1): three IPv4
// clients explore as often as they may for 15 s, while two slots serve
// them; the queue serves each in turn, so none is refused (503) on most
// of its tries. (Before: the third got 503 on 11 of 12.)
func attackExplorationTurns(t *testing.T, l *labProc) string {
	got, mean := exploreAs(l, []string{"198.51.100.1", "192.0.2.2", "203.0.113.3"}) // three networks
	var parts []string
	for i := range got {
		if n, all := got[i].get(http.StatusServiceUnavailable), got[i].total(); 2*n > all {
			t.Errorf("client %d got 503 on %d of %d tries", i+1, n, all)
		}
		parts = append(parts, got[i].String())
	}
	return fmt.Sprintf("explorations of %s each; the three clients: %s", mean.Round(time.Millisecond), strings.Join(parts, "; "))
}

// exploreAs has each client of who (a forwarded address) explore a
// distinct crowd as often as it may for 15 s, and returns what each got
// and how long an exploration took.
func exploreAs(l *labProc, who []string) ([]statuses, time.Duration) {
	c := clientFrom("127.0.0.1", 8, false)
	c.Timeout = 60 * time.Second
	var n atomic.Int64
	got := make([]statuses, len(who))
	var took, served atomic.Int64
	until(15*time.Second, len(who), func(i int) {
		start := time.Now()
		code, _, _ := do(c, http.MethodPost, l.base+"/api/explore?budget=1000000&deadline=3s", bytes.NewReader(exploreCrowd(n.Add(1))),
			"Content-Type", "application/json", "X-Forwarded-For", who[i])
		got[i].add(code)
		if code == http.StatusOK {
			took.Add(int64(time.Since(start)))
			served.Add(1)
		} else {
			time.Sleep(100 * time.Millisecond)
		}
	})
	return got, time.Duration(took.Load() / max(served.Load(), 1))
}

// exploreCrowd is eight workers that each acquire, write, expire, send
// and have it delivered: tens of millions of states, so that an
// exploration runs to its bounds. The values written differ with n, so
// that no two are one exploration to the explorer's cache.
func exploreCrowd(n int64) []byte {
	var events []map[string]any
	for w := range 8 {
		a := fmt.Sprintf("W%d", w)
		events = append(events,
			map[string]any{"actor": a, "kind": "acquire"},
			map[string]any{"actor": a, "kind": "write", "value": fmt.Sprintf("x%d", n)},
			map[string]any{"actor": a, "kind": "expire"},
			map[string]any{"actor": a, "kind": "send", "id": a, "value": "y"},
			map[string]any{"kind": "deliver", "request": a})
	}
	b, _ := json.Marshal(map[string]any{"version": 1, "title": "a crowd to explore", "events": events})
	return b
}

// attackSkewImports: 64 addresses post the import page's form with
// skew=50ms (an import that explores) at once, again and again for 15 s.
// RSS under 1 GB, the polite p99 under 1 s. (Before: no slot bound, a
// polite p99 of 1.13 s.)
func attackSkewImports(t *testing.T, l *labProc) string {
	body, ctype := importForm(t, 0, "50ms")
	var got statuses
	stop := time.Now().Add(15 * time.Second)
	eachAt(64, func(i int) {
		for time.Now().Before(stop) {
			g := postImports(l, 1, func(int) string { return fmt.Sprintf("127.0.6.%d", i+1) }, body, ctype)
			for _, code := range []int{0, 200, 429, 503} {
				for range g.get(code) {
					got.add(code)
				}
			}
			if bad := g.only(0, 200, 429, 503); bad != "" {
				got.add(-1)
			}
		}
	})
	if bad := got.only(http.StatusOK, http.StatusTooManyRequests, http.StatusServiceUnavailable, 0); bad != "" {
		t.Errorf("imports with --skew got %s, want only 200, 429, 503 or a closed connection", bad)
	}
	if got.get(http.StatusOK) == 0 {
		t.Errorf("no import with skew was answered: %s", &got)
	}
	return fmt.Sprintf("%d imports with skew from 64 addresses (%s)", got.total(), &got)
}

// attackHTTPS (--base-url https://fencelab.example, plain HTTP to the
// server as from a TLS proxy): every cookie is Secure and HSTS is sent.
func attackHTTPS(t *testing.T, l *labProc) string {
	c := clientFrom("127.0.0.2", 2, false)
	var bad []string
	_, _, h := do(c, http.MethodGet, l.base+"/", nil)
	hsts := h.Get("Strict-Transport-Security")
	if hsts == "" {
		bad = append(bad, "GET / sent no Strict-Transport-Security")
	}
	status, _, h := do(c, http.MethodPost, l.base+"/rooms", strings.NewReader("page=%2Fscenarios%2Fpaused-worker"),
		"Content-Type", "application/x-www-form-urlencoded")
	presenterCookies := (&http.Response{Header: h}).Cookies()
	loc := h.Get("Location")
	if status != http.StatusSeeOther || len(presenterCookies) == 0 {
		t.Fatalf("POST /rooms = %d with %d cookies", status, len(presenterCookies))
	}
	var cookieHeader []string
	for _, ck := range presenterCookies {
		cookieHeader = append(cookieHeader, ck.Name+"="+ck.Value)
	}
	if i := strings.Index(loc, "/scenarios/"); i > 0 {
		loc = loc[i:]
	}
	_, screen, _ := do(c, http.MethodGet, l.base+loc, nil, "Cookie", strings.Join(cookieHeader, "; "))
	m := roomCode.FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("GET %s: no room code", loc)
	}
	_, _, h = do(c, http.MethodGet, l.base+"/join/"+m[1], nil)
	all := append(presenterCookies, (&http.Response{Header: h}).Cookies()...)
	var names []string
	for _, ck := range all {
		names = append(names, fmt.Sprintf("%s Secure=%v", ck.Name, ck.Secure))
		if !ck.Secure {
			bad = append(bad, ck.Name+" is not Secure")
		}
	}
	if len(bad) > 0 {
		t.Errorf("behind TLS: %s", strings.Join(bad, "; "))
	}
	return fmt.Sprintf("HSTS %q; cookies: %s", hsts, strings.Join(names, ", "))
}

// attackBackupKill9: `fencelab backup` of a running server's 200 MB store
// is killed with SIGKILL while it writes; it leaves its .partial copy
// (kill -9 runs no clean-up), which the next backup to the same path
// removes once it has been left a minute (the copy's time is set back two
// minutes here rather than waited for). The next backup completes and no
// .partial is left.
func attackBackupKill9(t *testing.T, l *labProc) string {
	db, err := sql.Open("sqlite3", "file:"+l.db+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE attack_pad (b BLOB)`); err != nil {
		t.Fatal(err)
	}
	for range 50 {
		if _, err := db.Exec(`INSERT INTO attack_pad VALUES (randomblob(4000000))`); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "copy.db")
	partials := func() []string {
		m, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".copy.db.*.partial"))
		return m
	}
	cmd := commandOf("backup", "--db", l.db, out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killedAt := int64(-1)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if p := partials(); len(p) > 0 {
			if fi, err := os.Stat(p[0]); err == nil && fi.Size() > 1<<20 {
				cmd.Process.Signal(syscall.SIGKILL)
				killedAt = fi.Size()
				break
			}
		}
	}
	cmd.Wait()
	left := partials()
	if killedAt < 0 || len(left) == 0 {
		t.Fatalf("the backup was not killed while it wrote (killed at %d bytes, %d partials left)", killedAt, len(left))
	}
	for _, p := range left {
		old := time.Now().Add(-2 * time.Minute)
		os.Chtimes(p, old, old)
	}
	msg, code := l.fencelab("backup", "--db", l.db, out)
	after := partials()
	if code != 0 || len(after) > 0 {
		t.Errorf("the next backup: exit %d %s; %d .partial left, want 0", code, strings.TrimSpace(msg), len(after))
	}
	fi, _ := os.Stat(out)
	size := int64(0)
	if fi != nil {
		size = fi.Size()
	}
	return fmt.Sprintf("backup killed at %s written: %d .partial left; the next backup (exit %d, %s) left %d", sizeOf(killedAt), len(left), code, sizeOf(size), len(after))
}

// attackMetrics (--metrics-addr 127.0.0.1:0): a connection that sends
// nothing is closed within the header deadline (5 s); 16 kept-alive
// connections hold every slot, so a 17th is not served within 1 s; the
// idle ones are closed (20 s) and the 17th is served then.
func attackMetrics(t *testing.T, l *labProc) string {
	if l.metrics == "" {
		t.Fatal("no metrics listener in the log")
	}
	silent, err := dialAs("127.0.0.2", l.metrics, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	silent.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, err = silent.Read(make([]byte, 1))
	silentFor := time.Since(start)
	silent.Close()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || silentFor > 10*time.Second {
		t.Errorf("a silent connection to the metrics listener was left open %s, want closed within the header deadline", silentFor.Round(100*time.Millisecond))
	}
	var held []net.Conn
	for i := range 16 {
		conn, err := dialAs("127.0.0.2", l.metrics, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if code, err := rawGet(conn, bufio.NewReader(conn), "/metrics", 5*time.Second); code != http.StatusOK {
			t.Fatalf("metrics connection %d: %d %v", i+1, code, err)
		}
		held = append(held, conn)
	}
	extra, err := dialAs("127.0.0.2", l.metrics, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	br := bufio.NewReader(extra)
	code, _ := rawGet(extra, br, "/metrics", time.Second)
	if code != 0 {
		t.Errorf("a 17th metrics connection was served (%d) while 16 were held, want it to wait", code)
	}
	start = time.Now()
	extra.SetDeadline(time.Now().Add(40 * time.Second))
	res, err := http.ReadResponse(br, nil)
	servedAfter := time.Since(start) + time.Second
	servedCode := 0
	if err == nil {
		servedCode = res.StatusCode
		res.Body.Close()
	}
	closedIdle := 0
	for _, conn := range held {
		conn.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		if _, err := conn.Read(make([]byte, 1)); err != nil && !(errors.As(err, &ne) && ne.Timeout()) {
			closedIdle++
		}
	}
	if servedCode != http.StatusOK || closedIdle < 16 {
		t.Errorf("after the idle deadline: the 17th got %d (%v) after %s, %d of 16 idle connections closed; want 200 and 16",
			servedCode, err, servedAfter.Round(100*time.Millisecond), closedIdle)
	}
	return fmt.Sprintf("a silent connection closed after %s; with 16 held, a 17th unanswered for 1 s (%d), served %d after %s, when %d of 16 idle ones were closed",
		silentFor.Round(100*time.Millisecond), code, servedCode, servedAfter.Round(100*time.Millisecond), closedIdle)
}

// smallDisk is a 40 MiB filesystem (tmpfs) mounted in a temporary
// directory for the database, unmounted when the test ends; mounting
// needs root, so the attack is skipped without it.
func smallDisk(t *testing.T) string {
	dir := t.TempDir()
	if os.Geteuid() != 0 {
		t.Skip("a full disk needs a small filesystem mounted, which needs root")
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=40m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mount a 40 MiB tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	return dir
}

// attackFullDisk: the database's filesystem is filled but for 2 MB, and
// 8 clients save small distinct runs for 15 s; then 40 students answer a
// live room's question. Once the disk is full, saves and answers answer
// 507 (not 500), the log gets a line a minute (not one a request), and
// /readyz answers 503. (Before: answers got 500, the log 53 MB of ERROR
// lines in 20 s, and /readyz said ready.)
func attackFullDisk(t *testing.T, l *labProc) string {
	presenter := clientFrom("127.0.0.2", 4, true)
	_, room := roomOf(t, l, presenter, "/scenarios/paused-worker")
	var fs syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(l.db), &fs); err != nil {
		t.Fatal(err)
	}
	free := int64(fs.Bavail) * fs.Bsize
	filler := filepath.Join(filepath.Dir(l.db), "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	for n := int64(0); n < free-2<<20; n += int64(len(chunk)) {
		if _, err := f.Write(chunk); err != nil {
			break
		}
	}
	f.Close()
	titled := retitler(t)
	var got statuses
	var n atomic.Int64
	clients := make([]*http.Client, 8)
	for i := range clients {
		clients[i] = clientFrom(fmt.Sprintf("127.0.10.%d", i+1), 1, false)
	}
	until(15*time.Second, 8, func(i int) {
		code, _, _ := do(clients[i], http.MethodPost, l.base+"/api/runs", strings.NewReader(string(titled(fmt.Sprintf("full disk %d", n.Add(1))))),
			"Content-Type", "application/json")
		got.add(code)
	})
	var answers statuses
	for i := range 40 {
		st := clientFrom(fmt.Sprintf("127.0.10.%d", 20+i), 1, true)
		do(st, http.MethodGet, l.base+"/join/"+room, nil)
		answers.add(answer(st, l, room))
	}
	ready, readyBody, _ := do(clients[0], http.MethodGet, l.base+"/readyz", nil)
	log, _ := os.ReadFile(l.logPath)
	var errorLines, fullLines int
	for _, line := range strings.Split(string(log), "\n") {
		if strings.Contains(line, "level=ERROR") {
			errorLines++
		}
		if strings.Contains(line, "database full") {
			fullLines++
		}
	}
	if got.get(http.StatusInsufficientStorage) == 0 {
		t.Errorf("the disk never filled: %s", &got)
	}
	if bad := got.only(http.StatusCreated, http.StatusInsufficientStorage, http.StatusTooManyRequests); bad != "" {
		t.Errorf("saves on a full disk got %s, want only 201, 429 and 507", bad)
	}
	if bad := answers.only(http.StatusOK, http.StatusInsufficientStorage, http.StatusTooManyRequests); bad != "" {
		t.Errorf("answers on a full disk got %s, want only 200, 429 and 507", bad)
	}
	if ready != http.StatusServiceUnavailable {
		t.Errorf("/readyz on a full disk = %d %q, want 503", ready, strings.TrimSpace(readyBody))
	}
	if errorLines > 5 {
		t.Errorf("the log has %d ERROR lines after %d saves on a full disk, want one a minute", errorLines, got.total())
	}
	return fmt.Sprintf("%d saves on a disk of 2 MB free (%s), then 40 answers (%s); /readyz %d %q; the log: %d ERROR lines, %d of them database full, %s in all",
		got.total(), &got, &answers, ready, strings.TrimSpace(readyBody), errorLines, fullLines, sizeOf(int64(len(log))))
}
