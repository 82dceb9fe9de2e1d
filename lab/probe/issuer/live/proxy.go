package live

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// peerProxy fronts one member's peer port: every other member reaches it
// through here, so the probe can cut a member off from the others with
// no root, netem or iptables. On loopback every connection comes from
// 127.0.0.1, so the proxy tells members apart by the process that owns
// the connecting socket.
type peerProxy struct {
	ln     net.Listener
	target string // the member's own peer address
	owner  string // the member behind the proxy
	g      *group
}

// peerCut is the state of the partitions, shared by a group's proxies.
type peerCut struct {
	mu    sync.Mutex
	cut   map[string]bool
	conns map[net.Conn]connEnds
}

type connEnds struct{ from, to string }

func newPeerProxy(g *group, owner string) (*peerProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &peerProxy{ln: ln, owner: owner, g: g}
	g.proxies = append(g.proxies, p)
	return p, nil
}

func (p *peerProxy) addr() string { return p.ln.Addr().String() }

func (p *peerProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.handle(c)
	}
}

func (p *peerProxy) handle(c net.Conn) {
	from := p.g.memberOfConn(c)
	pc := &p.g.parts
	pc.mu.Lock()
	blocked := pc.cut[p.owner] || pc.cut[from]
	pc.mu.Unlock()
	if blocked {
		c.Close()
		return
	}
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	ends := connEnds{from, p.owner}
	pc.mu.Lock()
	pc.conns[c], pc.conns[up] = ends, ends
	pc.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { io.Copy(up, c); done <- struct{}{} }()
	go func() { io.Copy(c, up); done <- struct{}{} }()
	<-done
	c.Close()
	up.Close()
	pc.mu.Lock()
	delete(pc.conns, c)
	delete(pc.conns, up)
	pc.mu.Unlock()
}

// Partition cuts member m off from the others, both ways: its open peer
// connections are closed and new ones refused until Heal.
func (g *group) Partition(m string) error {
	if len(g.proxies) == 0 {
		return fmt.Errorf("partitions need the probe's peer proxies, which %s lacks in this version", g.kind)
	}
	if _, err := g.member(m); err != nil {
		return err
	}
	pc := &g.parts
	pc.mu.Lock()
	defer pc.mu.Unlock()
	pc.cut[m] = true
	for c, e := range pc.conns {
		if e.from == m || e.to == m {
			c.Close()
		}
	}
	return nil
}

// Heal ends m's partition.
func (g *group) Heal(m string) error {
	g.parts.mu.Lock()
	defer g.parts.mu.Unlock()
	delete(g.parts.cut, m)
	return nil
}

// memberOfConn names the member whose process owns the far end of c
// (a loopback connection), "" when it is none of them.
func (g *group) memberOfConn(c net.Conn) string {
	ra, ok := c.RemoteAddr().(*net.TCPAddr)
	if !ok {
		return ""
	}
	la := c.LocalAddr().(*net.TCPAddr)
	inode := socketInode(ra.Port, la.Port)
	if inode == "" {
		return ""
	}
	want := "socket:[" + inode + "]"
	for _, m := range g.members {
		m.mu.Lock()
		cmd := m.cmd
		m.mu.Unlock()
		if cmd == nil {
			continue
		}
		dir := fmt.Sprintf("/proc/%d/fd", cmd.Process.Pid)
		fds, _ := os.ReadDir(dir)
		for _, fd := range fds {
			if l, err := os.Readlink(dir + "/" + fd.Name()); err == nil && l == want {
				return m.name
			}
		}
	}
	return ""
}

// socketInode finds, in /proc/net/tcp and tcp6, the socket whose local
// port is local and remote port remote.
func socketInode(local, remote int) string {
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(file)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) < 10 || !strings.Contains(fs[1], ":") {
				continue
			}
			if port(fs[1]) == local && port(fs[2]) == remote {
				f.Close()
				return fs[9]
			}
		}
		f.Close()
	}
	return ""
}

func port(hexAddr string) int {
	i := strings.LastIndexByte(hexAddr, ':')
	n, _ := strconv.ParseInt(hexAddr[i+1:], 16, 32)
	return int(n)
}
