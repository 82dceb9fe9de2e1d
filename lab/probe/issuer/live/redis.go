package live

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisLock: SET KEY owner NX PX ttl, then INCR KEY:token; renew and
// release are scripts that act only while GET KEY is the owner.
type redisLock struct {
	c     *redis.Client
	key   string
	ttl   time.Duration
	owner string
	set   bool // the SET of the current owner may have gone through
}

var (
	renewScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return ` +
		`redis.call("PEXPIRE", KEYS[1], ARGV[2]) else return 0 end`)
	releaseScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`)
)

// quiet keeps the clients' own logs out of the worker's stderr.
func quiet() { redis.SetLogger(silent{}) }

type silent struct{}

func (silent) Printf(context.Context, string, ...any) {}

func newRedisLock(cfg *Config) (Lock, error) {
	opt, err := redis.ParseURL(cfg.redisURL())
	if err != nil {
		return nil, err
	}
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = cfg.Timeout, cfg.Timeout, cfg.Timeout
	opt.MaxRetries = -1 // a retried INCR would be a second token: never retry
	opt.PoolSize = 2
	return &redisLock{c: redis.NewClient(opt), key: cfg.Lock, ttl: cfg.TTL}, nil
}

func (l *redisLock) Session(context.Context) (bool, error) { return false, nil }
func (l *redisLock) Blocking() bool                        { return false }
func (l *redisLock) TTL() time.Duration                    { return l.ttl }
func (l *redisLock) Close()                                { l.c.Close() }

func (l *redisLock) Acquire(ctx context.Context, owner string) (int64, bool, error) {
	l.owner, l.set = owner, true
	ok, err := l.c.SetNX(ctx, l.key, owner, l.ttl).Result()
	if err != nil {
		return 0, false, err
	}
	if !ok {
		l.set = false
		return 0, false, nil
	}
	n, err := l.c.Incr(ctx, l.key+":token").Result()
	if err != nil {
		return 0, false, err
	}
	return n, true, nil
}

func (l *redisLock) Renew(ctx context.Context) (bool, error) {
	n, err := renewScript.Run(ctx, l.c, []string{l.key}, l.owner, l.ttl.Milliseconds()).Int64()
	return n == 1, err
}

func (l *redisLock) Release(ctx context.Context) (bool, error) {
	n, err := releaseScript.Run(ctx, l.c, []string{l.key}, l.owner).Int64()
	if err == nil {
		l.set = false
	}
	return n == 1, err
}

// Clear releases a lease whose SET may have gone through.
func (l *redisLock) Clear(ctx context.Context) {
	if l.set {
		if _, err := releaseScript.Run(ctx, l.c, []string{l.key}, l.owner).Result(); err == nil || errors.Is(err, redis.Nil) {
			l.set = false
		}
	}
}
