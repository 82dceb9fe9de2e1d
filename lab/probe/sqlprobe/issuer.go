package sqlprobe

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Issuer runs a lease table's blocks (ParseIssuer) for probe
// --issuer-sql: each block one transaction, serialization failures
// retried as a receiver's are.
type Issuer struct {
	r *Receiver
}

// OpenIssuer connects to the database named by db (see DSN) for an
// issuer's file; opt.Policy is unused.
func OpenIssuer(ctx context.Context, f *File, db string, opt Options) (*Issuer, error) {
	if !f.issuer {
		return nil, fmt.Errorf("%s was not read as an issuer's file", f.Name)
	}
	r, err := Open(ctx, f, db, opt)
	if err != nil {
		return nil, err
	}
	return &Issuer{r}, nil
}

// Close closes every connection.
func (is *Issuer) Close() error { return is.r.Close() }

// Engine is the database family.
func (is *Issuer) Engine() Engine { return is.r.engine }

// Version asks the database its version, "" when it will not say.
func (is *Issuer) Version(ctx context.Context) string {
	q := "SELECT version()"
	if is.r.engine == SQLite {
		q = "SELECT sqlite_version()"
	}
	var v string
	if err := is.r.db.QueryRowContext(ctx, q).Scan(&v); err != nil {
		return ""
	}
	if f := strings.Fields(v); len(f) > 1 && f[0] == "PostgreSQL" {
		return f[1]
	}
	return v
}

// Reset runs the reset block, when the file has one.
func (is *Issuer) Reset(ctx context.Context) error {
	if is.r.file.Blocks["reset"] == nil {
		return nil
	}
	return is.r.plain(ctx, "reset", nil)
}

// Acquire runs the acquire block: the token, or nil when refused.
func (is *Issuer) Acquire(ctx context.Context, lock, owner string, ttlMs, nowMs int64) (*int64, error) {
	var tok *int64
	err := is.r.retry(ctx, func(tx *sql.Tx) error {
		b := is.r.file.Blocks["acquire"]
		res, err := is.r.run(ctx, tx, b, map[string]any{"lock": lock, "owner": owner, "ttl_ms": ttlMs, "now_ms": nowMs})
		if err != nil {
			return err
		}
		t, ok := res.column("token")
		if !ok {
			return res.broken(fmt.Sprintf("returns columns %v; block acquire must return token", res.columns))
		}
		tok, err = integer(t)
		if err != nil {
			return res.broken("token " + err.Error())
		}
		return nil
	})
	return tok, err
}

// Renew runs the renew block: whether the lease was renewed.
func (is *Issuer) Renew(ctx context.Context, lock, owner string, token, ttlMs, nowMs int64) (bool, error) {
	return is.decide(ctx, "renew", map[string]any{"lock": lock, "owner": owner, "token": token, "ttl_ms": ttlMs, "now_ms": nowMs})
}

// Release runs the release block: whether the lease was still there to
// release.
func (is *Issuer) Release(ctx context.Context, lock, owner string, token, nowMs int64) (bool, error) {
	return is.decide(ctx, "release", map[string]any{"lock": lock, "owner": owner, "token": token, "now_ms": nowMs})
}

// decide: a row returned, or at least one row reported.
func (is *Issuer) decide(ctx context.Context, block string, args map[string]any) (bool, error) {
	var ok bool
	err := is.r.retry(ctx, func(tx *sql.Tx) error {
		res, err := is.r.run(ctx, tx, is.r.file.Blocks[block], args)
		if err != nil {
			return err
		}
		ok = res.rows && res.last != nil || !res.rows && res.affected >= 1
		return nil
	})
	return ok, err
}
