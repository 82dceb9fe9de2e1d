package live

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"fencelab/lab/probe/issuer"
)

// benchIssuer starts (or opens) an issuer of the kind for a benchmark,
// or skips without its binary.
func benchIssuer(b *testing.B, kind string) *Config {
	b.Helper()
	cfg := &Config{Kind: kind, TTL: 2 * time.Second, Timeout: 5 * time.Second, Lock: "/bench", Name: "w1", Time0: mono()}
	if kind == "sql" {
		text, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "docs", "issuer", "sqlite-lease.sql"))
		if err != nil {
			b.Fatal(err)
		}
		cfg.SQLName, cfg.SQLText, cfg.DB, cfg.Lock = "sqlite-lease.sql", string(text), filepath.Join(b.TempDir(), "l.db"), "bench"
		if _, _, err := probeIssuer(context.Background(), cfg); err != nil {
			b.Fatal(err)
		}
		return cfg
	}
	bin := map[string]string{"redis": "redis-server", "etcd": "etcd", "zk": "java"}[kind]
	if _, err := exec.LookPath(bin); err != nil {
		b.Skipf("no %s", bin)
	}
	c, _, err := Start(context.Background(), StartOptions{Kind: kind, Timeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Stop)
	cfg.Endpoints = c.Endpoints()
	if kind == "redis" {
		cfg.Lock = "bench"
	}
	if _, _, err := probeIssuer(context.Background(), cfg); err != nil {
		b.Fatal(err)
	}
	return cfg
}

// BenchmarkGrant weighs one grant and its release: through the issuer's
// client alone, and through the probe's recording of both (the marks
// sent before each request and the answers, JSON lines to a pipe).
//
//	go test -run - -bench Grant -benchtime 3s ./lab/probe/issuer/live/
func BenchmarkGrant(b *testing.B) {
	for _, kind := range []string{"sql", "redis", "etcd", "zk"} {
		b.Run(kind, func(b *testing.B) {
			cfg := benchIssuer(b, kind)
			ctx := context.Background()
			lock, err := newLock(ctx, cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer lock.Close()
			if _, err := lock.Session(ctx); err != nil {
				b.Fatal(err)
			}
			n := 0
			grant := func() {
				n++
				if _, ok, err := lock.Acquire(ctx, fmt.Sprintf("w1-%d", n)); err != nil || !ok {
					b.Fatalf("acquire: %v %v", ok, err)
				}
			}
			release := func() {
				if _, err := lock.Release(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.Run("client", func(b *testing.B) {
				for b.Loop() {
					grant()
					release()
				}
			})
			b.Run("probe", func(b *testing.B) {
				rec := &recorder{out: io.Discard, name: "w1", t0: cfg.Time0}
				for b.Loop() {
					id, _ := rec.send(issuer.OpAcquire)
					grant()
					tok := int64(n)
					rec.done(id, issuer.Op{Op: issuer.OpAcquire, Result: issuer.Granted, Token: &tok, Owner: "w1"}, nil)
					id, _ = rec.send(issuer.OpRelease)
					release()
					rec.done(id, issuer.Op{Op: issuer.OpRelease, Result: issuer.Released}, nil)
				}
			})
		})
	}
}

// BenchmarkRecord is the probe's own work per grant alone: the four lines
// a grant and its release write.
func BenchmarkRecord(b *testing.B) {
	rec := &recorder{out: io.Discard, name: "w1", t0: mono()}
	tok := int64(412)
	for b.Loop() {
		id, _ := rec.send(issuer.OpAcquire)
		rec.done(id, issuer.Op{Op: issuer.OpAcquire, Result: issuer.Granted, Token: &tok, Owner: "w1-17"}, nil)
		id, _ = rec.send(issuer.OpRelease)
		rec.done(id, issuer.Op{Op: issuer.OpRelease, Result: issuer.Released}, nil)
	}
}
