package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// clientProxy is the workers' one address of a Redis with replicas: it
// passes connections to the current primary, and a failover points it at
// the new one and drops every open connection, as a Sentinel-aware
// client would reconnect.
type clientProxy struct {
	ln     net.Listener
	mu     sync.Mutex
	target string
	conns  map[net.Conn]bool
}

func newClientProxy(target string) (*clientProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &clientProxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	go p.serve()
	return p, nil
}

func (p *clientProxy) addr() string { return p.ln.Addr().String() }

func (p *clientProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go func() {
			p.mu.Lock()
			target := p.target
			p.mu.Unlock()
			up, err := net.DialTimeout("tcp", target, time.Second)
			if err != nil {
				c.Close()
				return
			}
			p.mu.Lock()
			p.conns[c], p.conns[up] = true, true
			p.mu.Unlock()
			done := make(chan struct{}, 2)
			go func() { io.Copy(up, c); done <- struct{}{} }()
			go func() { io.Copy(c, up); done <- struct{}{} }()
			<-done
			c.Close()
			up.Close()
			p.mu.Lock()
			delete(p.conns, c)
			delete(p.conns, up)
			p.mu.Unlock()
		}()
	}
}

// point sends new connections to target and drops the open ones.
func (p *clientProxy) point(target string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.target = target
	for c := range p.conns {
		c.Close()
	}
}

func redisAt(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, DialTimeout: time.Second, ReadTimeout: time.Second, MaxRetries: -1})
}

// replOffset is a replica's replication offset (INFO replication).
func replOffset(ctx context.Context, addr string) (int64, error) {
	c := redisAt(addr)
	defer c.Close()
	info, err := c.Info(ctx, "replication").Result()
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "slave_repl_offset:"); ok {
			return strconv.ParseInt(v, 10, 64)
		}
	}
	return 0, errors.New("no slave_repl_offset in INFO replication")
}

// Failover kills -9 the primary, promotes the replica with the largest
// replication offset (REPLICAOF NO ONE), makes it the other replicas'
// primary and the workers' server. It returns the old primary, to be
// started again as a replica by Rejoin.
func (g *group) Failover(ctx context.Context) (string, error) {
	if g.front == nil {
		return "", errors.New("failover needs Redis with replicas (--start local=N, N ≥ 2)")
	}
	old, err := g.member(g.primary)
	if err != nil {
		return "", err
	}
	old.kill()
	var best *member
	bestOff := int64(-1)
	for _, m := range g.members {
		if m == old {
			continue
		}
		off, err := replOffset(ctx, m.addr)
		if err == nil && off > bestOff {
			best, bestOff = m, off
		}
	}
	if best == nil {
		return old.name, errors.New("no replica answered INFO replication")
	}
	c := redisAt(best.addr)
	err = c.Do(ctx, "REPLICAOF", "NO", "ONE").Err()
	c.Close()
	if err != nil {
		return old.name, fmt.Errorf("REPLICAOF NO ONE on %s: %w", best.name, err)
	}
	host, port, _ := net.SplitHostPort(best.addr)
	for _, m := range g.members {
		if m != old && m != best {
			c := redisAt(m.addr)
			c.Do(ctx, "REPLICAOF", host, port)
			c.Close()
		}
	}
	g.primary = best.name
	g.front.point(best.addr)
	return old.name, nil
}

// Rejoin starts the old primary again as a replica of the new one.
func (g *group) Rejoin(ctx context.Context, name string) error {
	m, err := g.member(name)
	if err != nil {
		return err
	}
	p, _ := g.member(g.primary)
	host, port, _ := net.SplitHostPort(p.addr)
	if i := indexOf(m.args, "--replicaof"); i >= 0 {
		m.args = append(m.args[:i], m.args[i+3:]...)
	}
	m.args = append(m.args, "--replicaof", host, port)
	return m.start()
}

func indexOf(xs []string, x string) int {
	for i, s := range xs {
		if s == x {
			return i
		}
	}
	return -1
}

// waitReplicas waits until every replica's link to the primary is up
// (the first full sync can take seconds: repl-diskless-sync-delay).
func (g *group) waitReplicas(ctx context.Context, within time.Duration) error {
	deadline := time.Now().Add(within)
	for _, m := range g.members[1:] {
		c := redisAt(m.addr)
		for {
			info, _ := c.Info(ctx, "replication").Result()
			if strings.Contains(info, "master_link_status:up") {
				break
			}
			if time.Now().After(deadline) {
				c.Close()
				return fmt.Errorf("replica %s did not sync with the primary within %s", m.name, within)
			}
			time.Sleep(100 * time.Millisecond)
		}
		c.Close()
	}
	return nil
}
