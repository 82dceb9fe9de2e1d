package live

import (
	"context"
	"errors"
	"math"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/zap"
)

// etcdLock: concurrency.Mutex on the prefix under the worker's own
// session lease; the token is the create revision of the worker's key.
type etcdLock struct {
	c      *clientv3.Client
	prefix string
	ask    time.Duration
	ttl    time.Duration
	lease  clientv3.LeaseID
	s      *concurrency.Session
	m      *concurrency.Mutex
}

func newEtcdLock(cfg *Config) (Lock, error) {
	c, err := clientv3.New(clientv3.Config{Endpoints: cfg.Endpoints, DialTimeout: cfg.Timeout, Logger: zap.NewNop()})
	if err != nil {
		return nil, err
	}
	return &etcdLock{c: c, prefix: cfg.Lock, ask: cfg.TTL, ttl: cfg.TTL}, nil
}

func (l *etcdLock) Blocking() bool     { return true }
func (l *etcdLock) TTL() time.Duration { return l.ttl }

// Session grants a new lease (whole seconds, rounded up) and a session
// on it; the probe keeps it alive itself (Renew) besides the library.
func (l *etcdLock) Session(ctx context.Context) (bool, error) {
	secs := int64(math.Ceil(l.ask.Seconds()))
	g, err := l.c.Grant(ctx, secs)
	if err != nil {
		return true, err
	}
	l.lease, l.ttl = g.ID, time.Duration(g.TTL)*time.Second
	s, err := concurrency.NewSession(l.c, concurrency.WithLease(g.ID), concurrency.WithTTL(int(g.TTL)))
	if err != nil {
		return true, err
	}
	l.s = s
	return true, nil
}

func (l *etcdLock) Acquire(ctx context.Context, owner string) (int64, bool, error) {
	if l.s == nil {
		return 0, false, errors.New("no session")
	}
	l.m = concurrency.NewMutex(l.s, l.prefix)
	if err := l.m.Lock(ctx); err != nil {
		return 0, false, err
	}
	// The Mutex keeps its key's create revision to itself: read it.
	r, err := l.c.Get(ctx, l.m.Key())
	if err != nil {
		return 0, false, err
	}
	if len(r.Kvs) == 0 {
		return 0, false, errors.New("the lock's key vanished right after the grant")
	}
	return r.Kvs[0].CreateRevision, true, nil
}

func (l *etcdLock) Renew(ctx context.Context) (bool, error) {
	r, err := l.c.KeepAliveOnce(ctx, l.lease)
	if errors.Is(err, rpctypes.ErrLeaseNotFound) || err == nil && r.TTL <= 0 {
		return false, nil
	}
	return err == nil, err
}

func (l *etcdLock) Release(ctx context.Context) (bool, error) {
	r, err := l.c.Delete(ctx, l.m.Key())
	if err != nil {
		return false, err
	}
	return r.Deleted == 1, nil
}

// Clear revokes the lease (or leaves it to expire) and forgets the
// session: the next acquire needs a new one.
func (l *etcdLock) Clear(ctx context.Context) {
	if l.s != nil {
		l.s.Orphan()
		l.c.Revoke(ctx, l.lease)
		l.s = nil
	}
}

func (l *etcdLock) Close() {
	if l.s != nil {
		l.s.Orphan()
	}
	l.c.Close()
}
