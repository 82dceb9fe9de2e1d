package live

import (
	"os"
	"strings"
	"testing"

	"fencelab/lab/probe/issuer"
)

func TestParseIssuer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url, kind, lock, str, err string
		endpoints                 int
	}{
		{url: "etcd://127.0.0.1:2379,127.0.0.1:2380/locks/a", kind: "etcd", lock: "/locks/a", endpoints: 2, str: "etcd://127.0.0.1:2379,127.0.0.1:2380/locks/a"},
		{url: "zk://127.0.0.1:2181", kind: "zk", lock: "/fencelab", endpoints: 1},
		{url: "redis://u:secret@127.0.0.1:6379/job?db=3", kind: "redis", lock: "job", endpoints: 1, str: "redis://u:xxx@127.0.0.1:6379/job"},
		{url: "redis://127.0.0.1:6379", kind: "redis", lock: "fencelab", endpoints: 1},
		{url: "consul://127.0.0.1:8500/x", err: `unknown scheme "consul"`},
		{url: "127.0.0.1:6379", err: "give etcd://"},
		{url: "redis://a:1,b:2/x", err: "Redis takes one address"},
		{url: "etcd://localhost/x", err: "is not host:port"},
	}
	for _, tt := range tests {
		c, err := ParseIssuer(tt.url)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.url, err, tt.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.url, err)
		case c.Kind != tt.kind || c.Lock != tt.lock || len(c.Endpoints) != tt.endpoints || tt.str != "" && c.String() != tt.str:
			t.Errorf("%s: %+v (%s)", tt.url, c, c.String())
		}
	}
}

// TestMissedPauses: a pause whose holder had already sent its release
// paused nobody holding the lock.
func TestMissedPauses(t *testing.T) {
	t.Parallel()
	tok := int64(3)
	h := []issuer.Op{
		{Worker: "w1", Op: issuer.OpAcquire, Sent: 0, Answered: 0.1, Result: issuer.Granted, Token: &tok},
		{Worker: "w1", Op: issuer.OpRelease, Sent: 0.99, Answered: 3.2, Result: issuer.Released},
		{Worker: issuer.Nemesis, Op: "pause-holder", Target: "w1", Sent: 1, Answered: 3},
		{Worker: issuer.Nemesis, Op: "pause-holder", Target: "w1", Sent: 0.5, Answered: 0.9},
	}
	missedPauses(h)
	if !h[2].Missed || h[3].Missed {
		t.Errorf("missed: %v and %v, want true (released at 0.99 s before the stop at 1 s) and false", h[2].Missed, h[3].Missed)
	}
}

// TestEtcdBase: the team's etcd YAML keeps every setting but the ones the
// probe sets (names, directories, addresses, membership).
func TestEtcdBase(t *testing.T) {
	t.Parallel()
	f := t.TempDir() + "/etcd.yaml"
	os.WriteFile(f, []byte("name: prod-1\nheartbeat-interval: 100\ndata-dir: /var/lib/etcd\nelection-timeout: 1000\nlisten-client-urls: http://10.0.0.1:2379\nclient-transport-security:\n  cert-file: x\n"), 0o644)
	got, err := etcdBase(f)
	if err != nil {
		t.Fatal(err)
	}
	if s := strings.Join(got, "\n"); s != "heartbeat-interval: 100\nelection-timeout: 1000\nclient-transport-security:\n  cert-file: x\n" {
		t.Errorf("kept %q", s)
	}
}
