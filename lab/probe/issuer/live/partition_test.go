package live

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestPartitionLeader: an etcd leader the probe cuts off from the others
// (through the peer proxies its members advertise) is replaced.
func TestPartitionLeader(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three-member clusters")
	}
	t.Parallel()
	for _, kind := range []string{"etcd"} {
		t.Run(kind, func(t *testing.T) {
			bin := map[string]string{"etcd": "etcd", "zk": "java"}[kind]
			if _, err := exec.LookPath(bin); err != nil {
				if os.Getenv("FENCELAB_ISSUER_TESTS") == "required" {
					t.Fatalf("no %s and FENCELAB_ISSUER_TESTS=required", bin)
				}
				t.Skipf("no %s", bin)
			}
			t.Parallel()
			ctx := context.Background()
			c, _, err := Start(ctx, StartOptions{Kind: kind, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Stop()
			g := c.(*group)
			old, err := g.Leader(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := g.Partition(old); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(20 * time.Second)
			for {
				others := &group{kind: g.kind}
				for _, m := range g.members {
					if m.name != old {
						others.members = append(others.members, m)
					}
				}
				lctx, cancel := context.WithTimeout(ctx, 2*time.Second)
				now, err := others.Leader(lctx)
				cancel()
				if err == nil && now != old {
					t.Logf("%s: %s cut off, %s leads", kind, old, now)
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: 20 s after cutting %s off, none of the others leads", kind, old)
				}
			}
			g.Heal(old)
		})
	}
}
