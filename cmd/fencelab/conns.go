package main

import (
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// connLimiter bounds the connections the server holds: --max-conns in
// all, idle keep-alives included, and a share of them for each client (an
// address, an IPv6 /64, as the budgets count clients) and for each network
// (a /24, an IPv6 /48), so that no client, and no network, can take every
// connection from the others:
//
//   - A client past its share, or a client whose network is past its
//     share (half of --max-conns), has its new connection closed at once.
//     Without the network's share, five addresses of one /24 whose 2,560
//     connections each trickled a request body held every connection, and
//     a polite client got 3 answers in 35 s.
//   - When every connection is taken, a new one closes an idle connection
//     (between requests, or open without a request yet) of the client that
//     holds the most, when that client holds more than the newcomer; else
//     it waits, as before, until a connection closes.
//
// A connection busy with a request (a save, a live room's stream) is never
// closed for another. The proxies of --trusted-proxy have no share: all
// their clients come through them.
type connLimiter struct {
	net.Listener
	max, share int
	netShare   int
	exempt     []netip.Prefix

	mu       sync.Mutex
	freed    *sync.Cond // a connection closed
	total    int
	clients  map[string]map[*limitedConn]struct{}
	networks map[string]int // connections of each network
}

// limitedConn is one connection the limiter counts.
type limitedConn struct {
	net.Conn
	l     *connLimiter
	key   string
	net   string // its network, "" for a trusted proxy's
	idle  bool   // no request in progress (guarded by l.mu)
	since time.Time
	once  sync.Once
}

func newConnLimiter(ln net.Listener, max, share int, trusted []string) *connLimiter {
	l := &connLimiter{Listener: ln, max: max, share: share, netShare: networkConnShare(max, share),
		clients: map[string]map[*limitedConn]struct{}{}, networks: map[string]int{}}
	l.freed = sync.NewCond(&l.mu)
	for _, p := range trusted {
		if pre, err := netip.ParsePrefix(p); err == nil {
			l.exempt = append(l.exempt, pre.Masked())
		} else if a, err := netip.ParseAddr(p); err == nil {
			l.exempt = append(l.exempt, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
		}
	}
	return l
}

// defaultConnShare is a client's share of maxConns: a quarter, so that a
// class of 300 phones behind one NAT address (each a live room's stream,
// 1,500 at most) fits in the default 2,048 with room for their pages.
func defaultConnShare(maxConns int) int { return max(maxConns/4, min(maxConns, 16)) }

// networkConnShare is a network's share: half of maxConns, and at least a
// client's, so that one network leaves the other half to everyone else.
func networkConnShare(maxConns, share int) int { return max(maxConns/2, share) }

// connKey is the client and the network of a connection's remote
// address, and whether it is a trusted proxy's.
func (l *connLimiter) connKey(c net.Conn) (client, network string, exempt bool) {
	ap, err := netip.ParseAddrPort(c.RemoteAddr().String())
	if err != nil {
		return c.RemoteAddr().String(), c.RemoteAddr().String(), false
	}
	a := ap.Addr().Unmap()
	for _, p := range l.exempt {
		if p.Contains(a) {
			return a.String(), "", true
		}
	}
	if a.Is6() {
		return netip.PrefixFrom(a, 64).Masked().String(), netip.PrefixFrom(a, 48).Masked().String(), false
	}
	return a.String(), netip.PrefixFrom(a, 24).Masked().String(), false
}

func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if lc := l.admit(c); lc != nil {
			return lc, nil
		}
	}
}

// admit counts c, or closes it when its client or its network is past its
// share.
func (l *connLimiter) admit(c net.Conn) *limitedConn {
	key, network, exempt := l.connKey(c)
	l.mu.Lock()
	defer l.mu.Unlock()
	over := func() bool { return !exempt && (len(l.clients[key]) >= l.share || l.networks[network] >= l.netShare) }
	if over() {
		c.Close()
		return nil
	}
	for l.total >= l.max {
		if victim := l.idleOfHeaviest(len(l.clients[key])); victim != nil {
			l.forget(victim) // counted out now; its Close below is the server's read error
			go victim.Conn.Close()
			continue
		}
		l.freed.Wait()
		if over() {
			c.Close()
			return nil
		}
	}
	lc := &limitedConn{Conn: c, l: l, key: key, net: network, idle: true, since: time.Now()}
	if network != "" {
		l.networks[network]++
	}
	if l.clients[key] == nil {
		l.clients[key] = map[*limitedConn]struct{}{}
	}
	l.clients[key][lc] = struct{}{}
	l.total++
	return lc
}

// idleOfHeaviest is the longest idle connection of the client holding
// the most connections, if it holds more than n+1; nil when there is none
// to close. Called with l.mu held.
func (l *connLimiter) idleOfHeaviest(n int) *limitedConn {
	var heaviest map[*limitedConn]struct{}
	for _, conns := range l.clients {
		if len(conns) > len(heaviest) && hasIdle(conns) {
			heaviest = conns
		}
	}
	if len(heaviest) <= n+1 {
		return nil
	}
	var oldest *limitedConn
	for c := range heaviest {
		if c.idle && (oldest == nil || c.since.Before(oldest.since)) {
			oldest = c
		}
	}
	return oldest
}

func hasIdle(conns map[*limitedConn]struct{}) bool {
	for c := range conns {
		if c.idle {
			return true
		}
	}
	return false
}

// forget counts c out, once. Called with l.mu held.
func (l *connLimiter) forget(c *limitedConn) {
	c.once.Do(func() {
		delete(l.clients[c.key], c)
		if len(l.clients[c.key]) == 0 {
			delete(l.clients, c.key)
		}
		if c.net != "" {
			if l.networks[c.net]--; l.networks[c.net] <= 0 {
				delete(l.networks, c.net)
			}
		}
		l.total--
		l.freed.Broadcast()
	})
}

func (c *limitedConn) Close() error {
	c.l.mu.Lock()
	c.l.forget(c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// connState is the http.Server's ConnState hook: it tells the limiter
// which connections are idle.
func (l *connLimiter) connState(c net.Conn, s http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch s {
	case http.StateActive:
		lc.idle = false
	case http.StateIdle:
		lc.idle, lc.since = true, time.Now()
	case http.StateHijacked, http.StateClosed:
		l.forget(lc)
	}
}
