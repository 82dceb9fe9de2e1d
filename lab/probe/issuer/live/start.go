package live

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// StartOptions say which issuer to start on loopback.
type StartOptions struct {
	Kind    string // etcd, zk, redis
	N       int    // members (0: the kind's default)
	Config  string // the team's own file, or ""
	Timeout time.Duration
	Log     io.Writer
}

// DefaultMembers is each kind's default --start local=N.
var DefaultMembers = map[string]int{"etcd": 3, "zk": 3, "redis": 1, "sql": 1}

// Faults lists the faults that apply to an issuer the probe starts, in
// the contract's order; the partitions are etcd's only, and Redis
// failover is not in this version.
func Faults(kind string, n int) []string {
	out := []string{"pause-holder", "pause-leader"}
	if n > 1 {
		out = append(out, "pause-member")
	}
	out = append(out, "kill-leader")
	if n > 1 {
		out = append(out, "kill-member")
	}
	out = append(out, "kill-all")
	if kind == "redis" && n > 1 {
		out = append(out, "failover")
	}
	if kind == "etcd" && n > 1 {
		out = append(out, "partition-leader", "partition-member")
	}
	return out
}

// Start starts the issuer in a temporary directory, on free loopback
// ports, from the binaries on PATH. It returns the overrides it made to
// the team's configuration, for the report.
func Start(ctx context.Context, opt StartOptions) (Cluster, []string, error) {
	if opt.N == 0 {
		opt.N = DefaultMembers[opt.Kind]
	}
	dir, err := os.MkdirTemp("", "fencelab-issuer-")
	if err != nil {
		return nil, nil, err
	}
	g := &group{kind: opt.Kind, dir: dir, log: opt.Log}
	var overrides []string
	switch opt.Kind {
	case "redis":
		overrides, err = g.redis(opt)
	case "etcd":
		overrides, err = g.etcd(opt)
	case "zk":
		overrides, err = g.zk(opt)
	case "sql":
		overrides, err = g.postgres(opt)
	default:
		err = fmt.Errorf("--start: the probe starts etcd, ZooKeeper or Redis, not %s", opt.Kind)
	}
	if err == nil {
		err = g.startAll(ctx, 30*time.Second)
	}
	if err == nil && g.front != nil {
		err = g.waitReplicas(ctx, 30*time.Second)
	}
	if err == nil && opt.Kind == "sql" {
		err = g.waitPostgres(ctx, 30*time.Second)
	}
	if err == nil && (opt.Kind == "etcd" || opt.Kind == "zk") {
		// a quorum before the first worker: a member accepts
		// connections before it has elected a leader
		lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		_, err = g.Leader(lctx)
		cancel()
	}
	if err != nil {
		g.Stop()
		return nil, nil, err
	}
	return g, overrides, nil
}

func look(bin string) (string, error) {
	p, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("--start local: no %s on PATH (Debian: apt-get install %s)", bin,
			map[string]string{"redis-server": "redis-server", "etcd": "etcd-server", "java": "zookeeper"}[bin])
	}
	return p, nil
}

// redis: one redis-server; the team's redis.conf first, then the
// probe's overrides on the command line, which win.
func (g *group) redis(opt StartOptions) ([]string, error) {
	bin, err := look("redis-server")
	if err != nil {
		return nil, err
	}
	out, _ := exec.Command(bin, "--version").Output()
	for _, f := range strings.Fields(string(out)) {
		if v, ok := strings.CutPrefix(f, "v="); ok {
			g.version = v
		}
	}
	ports, err := freePorts(opt.N)
	if err != nil {
		return nil, err
	}
	var overrides []string
	for i := range opt.N {
		name := fmt.Sprintf("redis-%d", i+1)
		mdir := filepath.Join(g.dir, name)
		os.MkdirAll(mdir, 0o755)
		over := []string{"--port", strconv.Itoa(ports[i]), "--bind", "127.0.0.1", "--dir", mdir, "--daemonize", "no",
			"--logfile", "", "--pidfile", "", "--protected-mode", "no"}
		var args []string
		if opt.Config != "" {
			abs, _ := filepath.Abs(opt.Config)
			args = append(args, abs)
		}
		args = append(args, over...)
		if i > 0 {
			args = append(args, "--replicaof", "127.0.0.1", strconv.Itoa(ports[0]))
			over = append(over, "--replicaof", "127.0.0.1", strconv.Itoa(ports[0]))
		}
		g.members = append(g.members, &member{name: name, addr: addr(ports[i]), bin: bin, args: args, dir: mdir})
		overrides = append(overrides, name+": redis-server "+strings.Join(over, " "))
	}
	if opt.N > 1 {
		// The workers reach the primary through the probe's own address,
		// which a failover points at the new primary, as Sentinel would.
		p, err := newClientProxy(g.members[0].addr)
		if err != nil {
			return nil, err
		}
		g.front, g.primary = p, g.members[0].name
	}
	return overrides, nil
}

// etcd: N members named etcd-1…; a --config YAML is read by etcd with
// the probe's flags beside it (etcd takes either, so the file's
// addresses are rewritten into a copy).
func (g *group) etcd(opt StartOptions) ([]string, error) {
	bin, err := look("etcd")
	if err != nil {
		return nil, err
	}
	out, _ := exec.Command(bin, "--version").Output()
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, "etcd Version: "); ok {
			g.version = strings.TrimSpace(v)
		}
	}
	var base []string
	if opt.Config != "" {
		if base, err = etcdBase(opt.Config); err != nil {
			return nil, err
		}
	}
	ports, err := freePorts(2 * opt.N)
	if err != nil {
		return nil, err
	}
	// Members advertise their peer proxies: every peer connection goes
	// through the probe, which can cut a member off (partition-*).
	var initial []string
	var proxies []*peerProxy
	for i := range opt.N {
		p, err := newPeerProxy(g, fmt.Sprintf("etcd-%d", i+1))
		if err != nil {
			return nil, err
		}
		p.target = addr(ports[2*i+1])
		proxies = append(proxies, p)
		initial = append(initial, fmt.Sprintf("etcd-%d=http://%s", i+1, p.addr()))
	}
	var overrides []string
	for i := range opt.N {
		name := fmt.Sprintf("etcd-%d", i+1)
		mdir := filepath.Join(g.dir, name)
		os.MkdirAll(mdir, 0o755)
		c, p := "http://"+addr(ports[2*i]), "http://"+addr(ports[2*i+1])
		args := []string{"--name", name, "--data-dir", filepath.Join(mdir, "data"),
			"--listen-client-urls", c, "--advertise-client-urls", c,
			"--listen-peer-urls", p, "--initial-advertise-peer-urls", "http://" + proxies[i].addr(),
			"--initial-cluster", strings.Join(initial, ","), "--initial-cluster-state", "new",
			"--initial-cluster-token", "fencelab-" + filepath.Base(g.dir)}
		overrides = append(overrides, name+": "+strings.Join(args, " "))
		if opt.Config != "" {
			// etcd reads flags or a file, not both: the team's file with
			// the probe's keys in place of its own
			file := filepath.Join(mdir, "etcd.yaml")
			var b strings.Builder
			for _, l := range base {
				b.WriteString(l + "\n")
			}
			for k := 0; k < len(args); k += 2 {
				fmt.Fprintf(&b, "%s: '%s'\n", strings.TrimPrefix(args[k], "--"), args[k+1])
			}
			if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
				return nil, err
			}
			args = []string{"--config-file", file}
		}
		g.members = append(g.members, &member{name: name, addr: addr(ports[2*i]), bin: bin, args: args, dir: mdir})
	}
	return overrides, nil
}

// etcdKeys are the keys of an etcd YAML the probe sets itself.
var etcdKeys = []string{"name", "data-dir", "wal-dir", "listen-client-urls", "advertise-client-urls", "listen-peer-urls",
	"initial-advertise-peer-urls", "initial-cluster", "initial-cluster-state", "initial-cluster-token", "discovery", "discovery-srv"}

// etcdBase reads the team's etcd YAML without the keys the probe sets
// (a flat file of key: value lines, as etcd's own sample is).
func etcdBase(file string) ([]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		k, _, ok := strings.Cut(l, ":")
		k = strings.TrimSpace(k)
		if ok && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "\t") && slices.Contains(etcdKeys, k) {
			continue
		}
		out = append(out, l)
	}
	return out, nil
}

// Leader asks each member: etcd's endpoint status, ZooKeeper's srvr,
// Redis's one server.
func (g *group) Leader(ctx context.Context) (string, error) {
	switch g.kind {
	case "sql":
		return g.members[0].name, nil
	case "redis":
		if g.primary != "" {
			return g.primary, nil
		}
		return g.members[0].name, nil
	case "etcd":
		c, err := clientv3.New(clientv3.Config{Endpoints: g.Endpoints(), DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
		if err != nil {
			return "", err
		}
		defer c.Close()
		for ctx.Err() == nil {
			for _, m := range g.members {
				st, err := c.Status(ctx, "http://"+m.addr)
				if err == nil && st.Leader != 0 && st.Leader == st.Header.MemberId {
					return m.name, nil
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		return "", fmt.Errorf("no etcd member says it leads: %w", ctx.Err())
	case "zk":
		for ctx.Err() == nil {
			for _, m := range g.members {
				if out, err := srvr(m.addr); err == nil && strings.Contains(out, "Mode: leader") {
					return m.name, nil
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		return "", fmt.Errorf("no ZooKeeper server says Mode: leader: %w", ctx.Err())
	}
	return "", fmt.Errorf("no leader for %s", g.kind)
}

// zk: N servers from Debian's jar; zoo.cfg written by the probe, the
// team's file (--config) copied first with the probe's lines replacing
// its own.
func (g *group) zk(opt StartOptions) ([]string, error) {
	java, err := look("java")
	if err != nil {
		return nil, err
	}
	jar := "/usr/share/java/zookeeper.jar"
	if _, err := os.Stat(jar); err != nil {
		return nil, fmt.Errorf("--start local: no %s (Debian: apt-get install zookeeper)", jar)
	}
	ports, err := freePorts(3 * opt.N)
	if err != nil {
		return nil, err
	}
	var base []string
	if opt.Config != "" {
		b, err := os.ReadFile(opt.Config)
		if err != nil {
			return nil, err
		}
		for _, l := range strings.Split(string(b), "\n") {
			k, _, _ := strings.Cut(strings.TrimSpace(l), "=")
			if k == "dataDir" || k == "dataLogDir" || k == "clientPort" || k == "clientPortAddress" || strings.HasPrefix(k, "server.") {
				continue
			}
			base = append(base, l)
		}
	} else {
		base = []string{"tickTime=2000", "initLimit=10", "syncLimit=5"}
	}
	var servers []string
	for i := range opt.N {
		servers = append(servers, fmt.Sprintf("server.%d=127.0.0.1:%d:%d", i+1, ports[3*i+1], ports[3*i+2]))
	}
	var overrides []string
	for i := range opt.N {
		name := fmt.Sprintf("zk-%d", i+1)
		mdir := filepath.Join(g.dir, name)
		os.MkdirAll(filepath.Join(mdir, "data"), 0o755)
		os.WriteFile(filepath.Join(mdir, "data", "myid"), []byte(strconv.Itoa(i+1)+"\n"), 0o644)
		own := append([]string{"dataDir=" + filepath.Join(mdir, "data"), "clientPort=" + strconv.Itoa(ports[3*i]),
			"clientPortAddress=127.0.0.1", "admin.enableServer=false", "4lw.commands.whitelist=srvr,ruok,stat"}, servers...)
		cfg := strings.Join(append(append([]string{}, base...), own...), "\n") + "\n"
		file := filepath.Join(mdir, "zoo.cfg")
		if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
			return nil, err
		}
		args := []string{"-Xmx128m", "-XX:+UseSerialGC", "-Dzookeeper.log.dir=" + mdir, "-Dzookeeper.root.logger=INFO,CONSOLE",
			"-cp", jar + ":/etc/zookeeper/conf", "org.apache.zookeeper.server.quorum.QuorumPeerMain", file}
		g.members = append(g.members, &member{name: name, addr: addr(ports[3*i]), bin: java, args: args, dir: mdir})
		if i == 0 {
			overrides = append(overrides, "zoo.cfg: "+strings.Join(own[:5], ", ")+", server.N lines")
		}
	}
	return overrides, nil
}

// srvr asks a ZooKeeper server its four-letter srvr: version, mode.
func srvr(addr string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("srvr")); err != nil {
		return "", err
	}
	b, err := io.ReadAll(c)
	return string(b), err
}
