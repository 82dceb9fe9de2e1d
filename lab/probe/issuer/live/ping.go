package live

import (
	"context"
	"errors"
	"math"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"fencelab/lab/probe/sqlprobe"
)

// probeIssuer asks the issuer once, the way its workers will.
func probeIssuer(ctx context.Context, cfg *Config) (string, time.Duration, error) {
	switch cfg.Kind {
	case "redis":
		opt, err := redis.ParseURL(cfg.redisURL())
		if err != nil {
			return "", 0, err
		}
		opt.DialTimeout, opt.MaxRetries = cfg.Timeout, -1
		c := redis.NewClient(opt)
		defer c.Close()
		info, err := c.Info(ctx, "server").Result()
		if err != nil {
			return "", 0, err
		}
		v := ""
		for _, l := range strings.Split(info, "\n") {
			if s, ok := strings.CutPrefix(strings.TrimSpace(l), "redis_version:"); ok {
				v = s
			}
		}
		return v, cfg.TTL, nil
	case "etcd":
		c, err := clientv3.New(clientv3.Config{Endpoints: cfg.Endpoints, DialTimeout: cfg.Timeout, Logger: zap.NewNop()})
		if err != nil {
			return "", 0, err
		}
		defer c.Close()
		st, err := c.Status(ctx, cfg.Endpoints[0])
		if err != nil {
			return "", 0, err
		}
		g, err := c.Grant(ctx, int64(math.Ceil(cfg.TTL.Seconds())))
		if err != nil {
			return "", 0, err
		}
		c.Revoke(ctx, g.ID)
		return st.Version, time.Duration(g.TTL) * time.Second, nil
	case "zk":
		l := &zkLock{servers: cfg.Endpoints, node: cfg.Lock, ask: cfg.TTL, timeout: cfg.Timeout}
		if _, err := l.Session(ctx); err != nil {
			return "", 0, err
		}
		defer l.Close()
		if err := ensureNode(l.conn(), cfg.Lock); err != nil {
			return "", 0, err
		}
		v := ""
		if out, err := srvr(cfg.Endpoints[0]); err == nil {
			for _, l := range strings.Split(out, "\n") {
				if rest, ok := strings.CutPrefix(l, "Zookeeper version: "); ok {
					v, _, _ = strings.Cut(rest, "-")
					v, _, _ = strings.Cut(v, ",")
				}
			}
		}
		return v, l.TTL(), nil
	case "sql":
		f, err := sqlprobe.ParseIssuer(cfg.SQLName, strings.NewReader(cfg.SQLText))
		if err != nil {
			return "", 0, err
		}
		is, err := openStarting(ctx, f, cfg)
		if err != nil {
			return "", 0, err
		}
		defer is.Close()
		v := string(is.Engine()) + " " + is.Version(ctx)
		if err := is.Reset(ctx); err != nil {
			return "", 0, err
		}
		return v, cfg.TTL, nil
	}
	return "", 0, errors.New("unknown issuer kind " + cfg.Kind)
}

// openStarting opens the lease table's database, again while the server
// answers that it is still starting up (PostgreSQL's SQLSTATE 57P03: its
// port opens before it takes logins), until ctx ends.
func openStarting(ctx context.Context, f *sqlprobe.File, cfg *Config) (*sqlprobe.Issuer, error) {
	for {
		is, err := sqlprobe.OpenIssuer(ctx, f, cfg.DB, sqlprobe.Options{Isolation: cfg.Isolation, Retries: cfg.Retries})
		if err == nil || !strings.Contains(err.Error(), "SQLSTATE 57P03") {
			return is, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(100 * time.Millisecond):
		}
	}
}
