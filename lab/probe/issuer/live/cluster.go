package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// member is one server process the probe started: it kills and restarts
// it by its own PID, from the same directory and arguments.
type member struct {
	name string
	addr string // its client address, host:port
	bin  string
	args []string
	dir  string
	cred *syscall.Credential // PostgreSQL as root: run as the postgres user

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

func (m *member) start() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	log, err := os.OpenFile(filepath.Join(m.dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(m.bin, m.args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = m.dir, log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: m.cred}
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("start %s: %w", m.name, err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		log.Close()
		close(done)
	}()
	m.cmd, m.done = cmd, done
	return nil
}

func (m *member) signal(sig syscall.Signal) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cmd == nil {
		return fmt.Errorf("%s is not running", m.name)
	}
	// its process group: a PostgreSQL server is a postmaster and its
	// backends, and they stop (or die) together
	return syscall.Kill(-m.cmd.Process.Pid, sig)
}

// kill sends SIGKILL (after SIGCONT, for a paused one) and waits.
func (m *member) kill() error {
	m.mu.Lock()
	cmd, done := m.cmd, m.done
	m.cmd = nil
	m.mu.Unlock()
	if cmd == nil {
		return nil
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGCONT)
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
	return err
}

// waitPort waits until addr accepts connections.
func waitPort(ctx context.Context, addr string, within time.Duration, exited <-chan struct{}) error {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-exited:
			return errors.New("it exited")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s did not accept connections within %s", addr, within)
}

// freePorts returns n loopback ports free right now.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// group is what every cluster kind shares: its members, its directory.
type group struct {
	kind    string
	dir     string
	version string
	members []*member
	log     io.Writer
	proxies []*peerProxy
	parts   peerCut
	front   *clientProxy // Redis with replicas: the workers' address
	primary string       // Redis with replicas: the current primary
}

func (g *group) Kind() string    { return g.kind }
func (g *group) Version() string { return g.version }

func (g *group) Members() []string {
	var out []string
	for _, m := range g.members {
		out = append(out, m.name)
	}
	return out
}

func (g *group) Endpoints() []string {
	if g.front != nil {
		return []string{g.front.addr()}
	}
	var out []string
	for _, m := range g.members {
		out = append(out, m.addr)
	}
	return out
}

func (g *group) member(name string) (*member, error) {
	for _, m := range g.members {
		if m.name == name {
			return m, nil
		}
	}
	return nil, fmt.Errorf("no member %q", name)
}

func (g *group) Signal(name string, sig syscall.Signal) error {
	m, err := g.member(name)
	if err != nil {
		return err
	}
	return m.signal(sig)
}

func (g *group) Kill(name string) error {
	m, err := g.member(name)
	if err != nil {
		return err
	}
	return m.kill()
}

func (g *group) Restart(ctx context.Context, name string) error {
	m, err := g.member(name)
	if err != nil {
		return err
	}
	if err := m.start(); err != nil {
		return err
	}
	return nil
}

// Stop kills every member by its PID and removes the directory.
func (g *group) Stop() {
	if g.front != nil {
		g.front.ln.Close()
	}
	for _, p := range g.proxies {
		p.ln.Close()
	}
	for _, m := range g.members {
		m.kill()
	}
	os.RemoveAll(g.dir)
}

// startAll starts every member and waits for its client port.
func (g *group) startAll(ctx context.Context, within time.Duration) error {
	g.serveProxies()
	for _, m := range g.members {
		if err := m.start(); err != nil {
			return err
		}
	}
	for _, m := range g.members {
		if err := waitPort(ctx, m.addr, within, m.done); err != nil {
			return fmt.Errorf("%s %s: %w; its log: %s", g.kind, m.name, err, tail(filepath.Join(m.dir, "server.log")))
		}
	}
	return nil
}

// serveProxies starts the peer proxies, with nobody cut off.
func (g *group) serveProxies() {
	g.parts.cut, g.parts.conns = map[string]bool{}, map[net.Conn]connEnds{}
	for _, p := range g.proxies {
		go p.serve()
	}
}

func tail(file string) string {
	b, _ := os.ReadFile(file)
	s := string(b)
	if len(s) > 1500 {
		s = "…" + s[len(s)-1500:]
	}
	return strings.TrimSpace(s)
}

func addr(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }
