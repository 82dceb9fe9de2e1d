package live

import (
	"net"
	"testing"
	"time"
)

// TestPeerProxy: the proxy passes bytes, and a partition closes the member's connections and
// refuses new ones until it heals.
func TestPeerProxy(t *testing.T) {
	t.Parallel()
	echo, _ := net.Listen("tcp", "127.0.0.1:0")
	defer echo.Close()
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() { b := make([]byte, 4); n, _ := c.Read(b); c.Write(b[:n]); c.Close() }()
		}
	}()
	g := &group{kind: "test", members: []*member{{name: "m1"}, {name: "m2"}}}
	p, err := newPeerProxy(g, "m2")
	if err != nil {
		t.Fatal(err)
	}
	p.target = echo.Addr().String()
	g.serveProxies()
	defer p.ln.Close()
	c, err := net.Dial("tcp", p.addr())
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("ping"))
	b := make([]byte, 4)
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if n, _ := c.Read(b); string(b[:n]) != "ping" {
		t.Fatalf("through the proxy: %q", b[:n])
	}
	c.Close()
	if err := g.Partition("m2"); err != nil {
		t.Fatal(err)
	}
	c, err = net.Dial("tcp", p.addr())
	if err == nil {
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		c.Write([]byte("ping"))
		if n, _ := c.Read(b); n > 0 {
			t.Errorf("a partitioned member still answers: %q", b[:n])
		}
		c.Close()
	}
	g.Heal("m2")
	c, err = net.Dial("tcp", p.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("pong"))
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if n, _ := c.Read(b); string(b[:n]) != "pong" {
		t.Errorf("after healing: %q", b[:n])
	}
}
