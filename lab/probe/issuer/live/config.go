package live

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"fencelab/lab/probe/sqlprobe"
)

// Config is one worker's (and the run's) view of the issuer.
type Config struct {
	Kind      string   // etcd, zk, redis, sql
	Endpoints []string // host:port of each member (etcd, zk, redis: the first)
	Lock      string   // etcd prefix, zk node, redis key, sql :lock
	User      string   // redis
	Password  string   // redis
	DB        string   // sql: --db; redis: the database number
	SQLName   string
	SQLText   string
	Isolation string
	Retries   int
	TTL       time.Duration
	Hold      time.Duration
	Timeout   time.Duration
	// Receiver, when not nil, is where the holders write.
	Receiver *Receiver

	// per worker
	Name  string
	Time0 int64 // the mono reading of time 0
	Seed  int64
}

// ParseIssuer reads --issuer's URL: etcd://h:p[,h:p]/PREFIX,
// zk://h:p[,h:p]/PATH, redis://[user:pass@]h:p/KEY[?db=N].
func ParseIssuer(raw string) (Config, error) {
	var c Config
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return c, fmt.Errorf("--issuer %q: give etcd://host:port/PREFIX, zk://host:port/PATH or redis://host:port/KEY", raw)
	}
	switch scheme {
	case "etcd", "zk", "redis":
	default:
		return c, fmt.Errorf("--issuer %q: unknown scheme %q; use etcd://, zk:// or redis:// (or --issuer-sql FILE --db URL)", raw, scheme)
	}
	c.Kind = scheme
	hosts, path, _ := strings.Cut(rest, "/")
	path, query, _ := strings.Cut(path, "?")
	if userinfo, h, ok := strings.Cut(hosts, "@"); ok && scheme == "redis" {
		hosts = h
		u, p, _ := strings.Cut(userinfo, ":")
		c.User, _ = url.PathUnescape(u)
		c.Password, _ = url.PathUnescape(p)
	}
	for _, h := range strings.Split(hosts, ",") {
		if h == "" || !strings.Contains(h, ":") {
			return c, fmt.Errorf("--issuer %q: %q is not host:port", raw, h)
		}
		c.Endpoints = append(c.Endpoints, h)
	}
	switch {
	case scheme == "redis" && len(c.Endpoints) > 1:
		return c, fmt.Errorf("--issuer %q: Redis takes one address, the one the service uses", raw)
	case scheme == "redis":
		c.Lock = path
		if c.Lock == "" {
			c.Lock = "fencelab"
		}
		if q, err := url.ParseQuery(query); err == nil && q.Get("db") != "" {
			c.DB = q.Get("db")
		}
	default:
		c.Lock = "/" + strings.Trim(path, "/")
		if c.Lock == "/" {
			c.Lock = "/fencelab"
		}
	}
	return c, nil
}

// String is the issuer as the report names it, without a password.
func (c *Config) String() string {
	switch c.Kind {
	case "sql":
		return c.SQLName + " on " + sqlprobe.Redact(c.DB)
	case "redis":
		u := ""
		if c.User != "" || c.Password != "" {
			u = c.User + ":xxx@"
		}
		return "redis://" + u + c.Endpoints[0] + "/" + c.Lock
	}
	return c.Kind + "://" + strings.Join(c.Endpoints, ",") + c.Lock
}

func (c *Config) redisURL() string {
	u := url.URL{Scheme: "redis", Host: c.Endpoints[0]}
	if c.User != "" || c.Password != "" {
		u.User = url.UserPassword(c.User, c.Password)
	}
	if c.DB != "" {
		u.Path = "/" + c.DB
	}
	return u.String()
}

// newLock opens a worker's client.
func newLock(ctx context.Context, c *Config) (Lock, error) {
	switch c.Kind {
	case "etcd":
		return newEtcdLock(c)
	case "zk":
		return newZKLock(c)
	case "redis":
		return newRedisLock(c)
	case "sql":
		return newSQLLock(ctx, c)
	}
	return nil, fmt.Errorf("unknown issuer kind %q", c.Kind)
}
