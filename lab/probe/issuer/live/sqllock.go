package live

import (
	"context"
	"strings"
	"time"

	"fencelab/lab/probe/sqlprobe"
)

// sqlLock runs the lease table's blocks; :owner is the attempt's owner.
type sqlLock struct {
	is    *sqlprobe.Issuer
	lock  string
	ttl   time.Duration
	owner string
	token int64
}

func newSQLLock(ctx context.Context, cfg *Config) (Lock, error) {
	f, err := sqlprobe.ParseIssuer(cfg.SQLName, strings.NewReader(cfg.SQLText))
	if err != nil {
		return nil, err
	}
	is, err := sqlprobe.OpenIssuer(ctx, f, cfg.DB, sqlprobe.Options{Isolation: cfg.Isolation, Retries: cfg.Retries, Conns: 1})
	if err != nil {
		return nil, err
	}
	return &sqlLock{is: is, lock: cfg.Lock, ttl: cfg.TTL}, nil
}

func nowMs() int64 { return time.Now().UnixMilli() }

func (l *sqlLock) Session(context.Context) (bool, error) { return false, nil }
func (l *sqlLock) Blocking() bool                        { return false }
func (l *sqlLock) TTL() time.Duration                    { return l.ttl }
func (l *sqlLock) Close()                                { l.is.Close() }
func (l *sqlLock) Clear(context.Context)                 {} // the lease ends at its TTL; a new owner never re-enters

func (l *sqlLock) Acquire(ctx context.Context, owner string) (int64, bool, error) {
	l.owner = owner
	tok, err := l.is.Acquire(ctx, l.lock, owner, l.ttl.Milliseconds(), nowMs())
	if err != nil || tok == nil {
		return 0, false, err
	}
	l.token = *tok
	return *tok, true, nil
}

func (l *sqlLock) Renew(ctx context.Context) (bool, error) {
	return l.is.Renew(ctx, l.lock, l.owner, l.token, l.ttl.Milliseconds(), nowMs())
}

func (l *sqlLock) Release(ctx context.Context) (bool, error) {
	return l.is.Release(ctx, l.lock, l.owner, l.token, nowMs())
}
