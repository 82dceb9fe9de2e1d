package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// zkLock is the lock recipe (Curator's InterProcessMutex): an ephemeral
// sequential child _c_<uuid>-lock- of the lock node, held when it has the
// lowest sequence; a waiter watches the child just before its own. The
// token is the child's czxid.
type zkLock struct {
	servers []string
	node    string
	ask     time.Duration
	timeout time.Duration

	mu   sync.Mutex
	c    *zk.Conn
	ttl  time.Duration
	mine string // the worker's child, "" when it has none
}

func newZKLock(cfg *Config) (Lock, error) {
	return &zkLock{servers: cfg.Endpoints, node: cfg.Lock, ask: cfg.TTL, timeout: cfg.Timeout, ttl: cfg.TTL}, nil
}

func (l *zkLock) Blocking() bool { return true }
func (l *zkLock) TTL() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ttl
}

var negotiated = regexp.MustCompile(`timeout=(\d+)`)

// timeoutLog reads the negotiated session timeout from the client's log.
type timeoutLog struct{ l *zkLock }

func (t timeoutLog) Printf(format string, a ...any) {
	if m := negotiated.FindStringSubmatch(fmt.Sprintf(format, a...)); m != nil {
		ms, _ := strconv.Atoi(m[1])
		t.l.mu.Lock()
		t.l.ttl = time.Duration(ms) * time.Millisecond
		t.l.mu.Unlock()
	}
}

func (l *zkLock) Session(ctx context.Context) (bool, error) {
	l.closeConn()
	c, events, err := zk.Connect(l.servers, l.ask, zk.WithLogger(timeoutLog{l}), zk.WithLogInfo(true))
	if err != nil {
		return true, err
	}
	deadline := time.After(l.timeout)
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				go func() {
					for range events {
					}
				}()
				l.mu.Lock()
				l.c, l.mine = c, ""
				l.mu.Unlock()
				return true, nil
			}
		case <-deadline:
			c.Close()
			return true, errors.New("no session within the timeout")
		case <-ctx.Done():
			c.Close()
			return true, ctx.Err()
		}
	}
}

func (l *zkLock) conn() *zk.Conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.c
}

// ensureNode creates the lock node, persistent, with missing parents.
func ensureNode(c *zk.Conn, node string) error {
	parts := strings.Split(strings.Trim(node, "/"), "/")
	path := ""
	for _, p := range parts {
		path += "/" + p
		if _, err := c.Create(path, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return err
		}
	}
	return nil
}

func seq(name string) int64 {
	i := strings.LastIndex(name, "-lock-")
	if i < 0 {
		return -1
	}
	n, _ := strconv.ParseInt(name[i+len("-lock-"):], 10, 64)
	return n
}

func (l *zkLock) Acquire(ctx context.Context, owner string) (int64, bool, error) {
	c := l.conn()
	if c == nil {
		return 0, false, errors.New("no session")
	}
	if err := ensureNode(c, l.node); err != nil {
		return 0, false, err
	}
	path, err := c.CreateProtectedEphemeralSequential(l.node+"/lock-", []byte(owner), zk.WorldACL(zk.PermAll))
	if err != nil {
		return 0, false, err
	}
	l.mu.Lock()
	l.mine = path
	l.mu.Unlock()
	me := path[strings.LastIndex(path, "/")+1:]
	for {
		kids, _, err := c.Children(l.node)
		if err != nil {
			return 0, false, err
		}
		kids = slicesFilter(kids)
		sort.Slice(kids, func(i, j int) bool { return seq(kids[i]) < seq(kids[j]) })
		idx := -1
		for i, k := range kids {
			if k == me {
				idx = i
			}
		}
		if idx < 0 {
			return 0, false, errors.New("the lock's child vanished: the session expired")
		}
		if idx == 0 {
			_, st, err := c.Exists(path)
			if err != nil {
				return 0, false, err
			}
			return st.Czxid, true, nil
		}
		ok, _, ch, err := c.ExistsW(l.node + "/" + kids[idx-1])
		if err != nil {
			return 0, false, err
		}
		if !ok {
			continue
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return 0, false, ctx.Err()
		}
	}
}

func slicesFilter(kids []string) []string {
	out := kids[:0]
	for _, k := range kids {
		if seq(k) >= 0 {
			out = append(out, k)
		}
	}
	return out
}

// Renew is an exists of the worker's child (of the lock node while it
// has none): any request keeps the session.
func (l *zkLock) Renew(ctx context.Context) (bool, error) {
	c := l.conn()
	if c == nil {
		return false, nil
	}
	l.mu.Lock()
	p := l.mine
	l.mu.Unlock()
	if p == "" {
		p = l.node
	}
	ok, _, err := c.Exists(p)
	switch {
	case errors.Is(err, zk.ErrSessionExpired) || c.State() == zk.StateExpired:
		return false, nil
	case err != nil:
		return false, err
	case !ok && p != l.node:
		return false, nil
	}
	return true, nil
}

func (l *zkLock) Release(ctx context.Context) (bool, error) {
	c := l.conn()
	l.mu.Lock()
	p := l.mine
	l.mu.Unlock()
	if c == nil || p == "" {
		return false, nil
	}
	err := c.Delete(p, -1)
	if errors.Is(err, zk.ErrNoNode) {
		err = nil
		l.mu.Lock()
		l.mine = ""
		l.mu.Unlock()
		return false, nil
	}
	if err == nil {
		l.mu.Lock()
		l.mine = ""
		l.mu.Unlock()
	}
	return err == nil, err
}

// Clear deletes the worker's child, or closes the session: a child left
// behind would hold the lock for the session's life.
func (l *zkLock) Clear(ctx context.Context) {
	c := l.conn()
	l.mu.Lock()
	p := l.mine
	l.mu.Unlock()
	if c != nil && p != "" && c.Delete(p, -1) == nil {
		l.mu.Lock()
		l.mine = ""
		l.mu.Unlock()
		return
	}
	l.closeConn()
}

func (l *zkLock) closeConn() {
	l.mu.Lock()
	c := l.c
	l.c, l.mine = nil, ""
	l.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

func (l *zkLock) Close() { l.closeConn() }

var _ = log.New(io.Discard, "", 0)
