package sqlprobe

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"slices"
	"strings"
)

// The blocks of an issuer's file (probe --issuer-sql), in order, with
// their parameters.
var issuerOrder = []string{"reset", "acquire", "renew", "release"}

var issuerParams = map[string][]string{
	"reset":   {},
	"acquire": {"lock", "owner", "ttl_ms", "now_ms"},
	"renew":   {"lock", "owner", "token", "ttl_ms", "now_ms"},
	"release": {"lock", "owner", "token", "now_ms"},
}

// issuerFacts are the places of an issuer's parameters in args.
var issuerFacts = map[string]factID{"lock": fLock, "owner": fOwner, "token": fToken, "ttl_ms": fTTLMs, "now_ms": fNowMs}

// ParseIssuer reads a lease table's statement file by the first version's
// rules: blocks acquire (returning token), renew and release, and an
// optional reset, each named by its -- name: line; :name parameters; an
// isolation line in acquire only, which every block runs at. Every
// mistake is reported with its line before anything runs.
func ParseIssuer(name string, r io.Reader) (*File, error) {
	f, err := read(name, r, true)
	if err != nil {
		return nil, err
	}
	return f, f.Bind(Config{})
}

// bindIssuer checks an issuer's file and plans its statements for e
// (the engine of --db; "" before it is known). Only :name is a
// parameter here; ?, $n and @name stay in the text as written.
func (f *File) bindIssuer(e Engine) error {
	f.Blocks, f.Isolation = map[string]*Block{}, ""
	for _, q := range f.Queries {
		name := strings.ToLower(q.Name)
		if !slices.Contains(issuerOrder, name) {
			return &FileError{f.Name, q.Line, fmt.Sprintf("unknown block %q: use %s", q.Name, strings.Join(issuerOrder, ", "))}
		}
		f.Blocks[name] = &Block{Name: name, Line: q.Line, Queries: []*Query{q}}
	}
	for _, name := range []string{"acquire", "renew", "release"} {
		if f.Blocks[name] == nil {
			return &FileError{f.Name, 0, fmt.Sprintf("no %q block: an issuer's file needs -- name: acquire, "+
				"renew and release (reset is optional)", name)}
		}
	}
	for _, name := range issuerOrder {
		b := f.Blocks[name]
		if b == nil {
			continue
		}
		q := b.Queries[0]
		if len(q.Statements) == 0 {
			return &FileError{f.Name, q.Line, fmt.Sprintf("block %s has no statement", name)}
		}
		if q.Isolation != "" && name != "acquire" {
			return &FileError{f.Name, q.isoLine, fmt.Sprintf("an isolation line in block %s: only acquire "+
				"takes one, and every block runs at its level", name)}
		}
		for _, st := range q.Statements {
			if w := st.first(); slices.Contains(txControl, w) {
				return &FileError{f.Name, st.Line, fmt.Sprintf("block %s: %s; the probe runs each block as "+
					"one transaction of its own, so leave transaction control out (an isolation line sets the level)",
					name, strings.ToUpper(w))}
			}
			pb := newPlanner(e)
			pb.text(st.parts[0])
			for i, p := range st.phs {
				if p.kind != ':' {
					pb.text(p.written)
				} else if slices.Contains(issuerParams[name], p.name) {
					pb.param(p.written, p.key(), &source{key: p.written, fact: p.name, fi: issuerFacts[p.name]})
				} else {
					return &FileError{f.Name, p.line, fmt.Sprintf("block %s: unknown parameter %s; it takes %s",
						name, p.written, paramList(issuerParams[name]))}
				}
				pb.text(st.parts[2*i+2])
			}
			st.plan, st.rows, st.cols, st.uses = pb.done(), st.ReturnsRows(), colNames{}, map[string]bool{}
			b.Statements = append(b.Statements, st)
		}
	}
	a := f.Blocks["acquire"]
	f.Isolation = a.Queries[0].Isolation
	if last := a.Statements[len(a.Statements)-1]; !(last.rows && last.names("token")) {
		return &FileError{f.Name, last.Line, "block acquire: its last statement must return a column token (… " +
			"RETURNING n AS token, or SELECT n AS token FROM … WHERE name = :lock AND owner = :owner)"}
	}
	return nil
}

func paramList(ps []string) string {
	if len(ps) == 0 {
		return "none"
	}
	return ":" + strings.Join(ps, ", :")
}

// Issuer runs a lease table's blocks (ParseIssuer) for probe
// --issuer-sql: each block one transaction, serialization failures and
// deadlocks retried as a receiver's are.
type Issuer struct {
	r *Receiver
}

// OpenIssuer connects to the database named by db (see DSN) for an
// issuer's file; opt.Policy is unused.
func OpenIssuer(ctx context.Context, f *File, db string, opt Options) (*Issuer, error) {
	if !f.issuer {
		return nil, fmt.Errorf("%s was not read as an issuer's file", f.Name)
	}
	opt.Policy = ""
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
	b := is.r.file.Blocks["reset"]
	if b == nil {
		return nil
	}
	return is.r.retry(ctx, func(tx *sql.Tx) error {
		_, err := is.r.run(ctx, tx, b, &args{})
		return err
	})
}

// Acquire runs the acquire block: the token, or nil when refused.
func (is *Issuer) Acquire(ctx context.Context, lock, owner string, ttlMs, nowMs int64) (*int64, error) {
	var tok *int64
	a := args{fLock: lock, fOwner: owner, fTTLMs: ttlMs, fNowMs: nowMs}
	err := is.r.retry(ctx, func(tx *sql.Tx) error {
		res, err := is.r.run(ctx, tx, is.r.file.Blocks["acquire"], &a)
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
	return is.decide(ctx, "renew", &args{fLock: lock, fOwner: owner, fToken: token, fTTLMs: ttlMs, fNowMs: nowMs})
}

// Release runs the release block: whether the lease was still there to
// release.
func (is *Issuer) Release(ctx context.Context, lock, owner string, token, nowMs int64) (bool, error) {
	return is.decide(ctx, "release", &args{fLock: lock, fOwner: owner, fToken: token, fNowMs: nowMs})
}

// decide: a row returned, or at least one row reported.
func (is *Issuer) decide(ctx context.Context, block string, a *args) (bool, error) {
	var ok bool
	err := is.r.retry(ctx, func(tx *sql.Tx) error {
		res, err := is.r.run(ctx, tx, is.r.file.Blocks[block], a)
		if err != nil {
			return err
		}
		ok = res.rows && res.last != nil || !res.rows && res.affected >= 1
		return nil
	})
	return ok, err
}
