package live

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestLineJSON: a line written by hand reads back as encoding/json
// would write it, odd text included.
func TestLineJSON(t *testing.T) {
	t.Parallel()
	tok := int64(-412)
	for _, l := range []line{
		{Op: issuer.Op{Worker: "w3", Op: issuer.OpAcquire, Sent: 8.0213, Answered: 8.0251, Result: issuer.Granted, Token: &tok, Owner: "w3-17"}, ID: 9},
		{Op: issuer.Op{Worker: "w1", Op: issuer.OpRenew, Sent: 1e-7, Result: issuer.Unknown, Error: "dial tcp: \"x\" <é>\n\\"}, ID: 1, Mark: "sending"},
		{Op: issuer.Op{Worker: "nemesis", Op: "pause-holder", Target: "w2", Sent: 10, Answered: 14.0004, Missed: true}},
	} {
		b := appendLine(nil, &l)
		var got line
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		want, _ := json.Marshal(l)
		again, _ := json.Marshal(got)
		if string(want) != string(again) || b[len(b)-1] != '\n' {
			t.Errorf("wrote %s, read back %s, want %s", b, again, want)
		}
	}
}

// TestRunLogTakesTurns: four workers writing to their stderr at once reach
// a Log that is not safe for concurrent use (a bytes.Buffer, as the
// command's tests pass) one write at a time, at most 4 KiB of each. Under
// the race detector this fails if the copies are not serialized.
func TestRunLogTakesTurns(t *testing.T) {
	t.Parallel()
	exe := filepath.Join(t.TempDir(), "worker")
	script := "#!/bin/sh\ni=0\nwhile [ $i -lt 400 ]; do echo \"w line $i\" >&2; i=$((i+1)); done\nexec sleep 30\n"
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	res, err := Run(context.Background(), Config{Kind: "redis"}, Options{Workers: 4, Duration: 500 * time.Millisecond, Exe: exe, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.History) != 0 {
		t.Errorf("history %v, want none: the workers said nothing on stdout", res.History)
	}
	// 400 lines of 8 to 9 bytes from each: more than 4 KiB, so each is cut
	// at 4 KiB, and the four make 16 KiB.
	if got := log.Len(); got != 4*4096 {
		t.Errorf("the log holds %d bytes, want 4 × 4096", got)
	}
	if n := strings.Count(log.String(), " line 0\n"); n != 4 {
		t.Errorf("%d workers' first lines in the log, want 4:\n%.300s", n, log.String())
	}
}
