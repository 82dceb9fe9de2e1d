package sqlprobe

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"fencelab/lab"
	"fencelab/lab/probe"
)

// Options say how the receiver runs its statements.
type Options struct {
	// Policy is the one the probe checks; a check block decides by it.
	Policy lab.Policy
	// Isolation applies when the file has no isolation line; "" is the
	// database's default.
	Isolation string
	// Retries is how often a serialization failure is retried (0: never;
	// DefaultRetries is what a service would do).
	Retries int
	// Conns is the most connections open at once: one per concurrent
	// worker, and one more for reads.
	Conns int
}

// DefaultRetries is how often --retries retries a serialization failure.
const DefaultRetries = 20

// Receiver plays the probe's requests as the file's statements against
// one database. It implements probe.Receiver.
type Receiver struct {
	file   *File
	engine Engine
	dsn    string
	target string
	opt    Options
	iso    sql.IsolationLevel
	mu     sync.RWMutex // Restart swaps db under the write lock
	db     *sql.DB
}

var _ probe.Receiver = (*Receiver)(nil)

// Open connects to the database named by db (see DSN) and checks that it
// answers; an unreachable database is a *probe.UnreachableError.
func Open(ctx context.Context, f *File, db string, opt Options) (*Receiver, error) {
	engine, dsn, err := DSN(db)
	if err != nil {
		return nil, err
	}
	iso := f.Isolation
	if iso == "" {
		iso = strings.ToLower(opt.Isolation)
	}
	if iso != "" && engine.level(iso) == sql.LevelDefault && engine != SQLite {
		return nil, fmt.Errorf("--isolation %q: use read committed, repeatable read or serializable", opt.Isolation)
	}
	opt.Retries = max(opt.Retries, 0)
	opt.Conns = max(opt.Conns, 1) + 1
	r := &Receiver{file: f, engine: engine, dsn: dsn, opt: opt, iso: engine.level(iso),
		target: f.Name + " on " + Redact(db)}
	if err := r.connect(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// connect opens the pool and pings it.
func (r *Receiver) connect(ctx context.Context) error {
	db, err := sql.Open(Drivers[r.engine], r.dsn)
	if err != nil {
		return fmt.Errorf("open %s: %w (is the %s driver registered?)", r.target, err, Drivers[r.engine])
	}
	db.SetMaxOpenConns(r.opt.Conns)
	db.SetMaxIdleConns(r.opt.Conns)
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return &probe.UnreachableError{Request: "connect to " + r.target, Err: err}
	}
	r.db = db
	return nil
}

// Engine is the database family the receiver speaks to.
func (r *Receiver) Engine() Engine { return r.engine }

// Target implements probe.Receiver.
func (r *Receiver) Target() string { return r.target }

// Close closes every connection.
func (r *Receiver) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.db.Close()
}

// SQLFile is the statement file as a saved probe keeps it.
func (r *Receiver) SQLFile() *probe.SQLFile {
	iso := ""
	if r.iso != sql.LevelDefault {
		iso = strings.ToLower(r.iso.String())
	}
	return &probe.SQLFile{Name: r.file.Name, Engine: string(r.engine), Isolation: iso, Text: r.file.Text}
}

// Reset implements probe.Receiver.
func (r *Receiver) Reset(ctx context.Context) error {
	return r.plain(ctx, "reset", nil)
}

// Grant implements probe.Receiver: probe.ErrNotSupported without a grant
// block.
func (r *Receiver) Grant(ctx context.Context, scope string, token int64) error {
	if r.file.Blocks["grant"] == nil {
		return probe.ErrNotSupported
	}
	return r.plain(ctx, "grant", map[string]any{"scope": scope, "token": token})
}

// Restart implements probe.Receiver: every connection is closed and
// opened again, then the restart block runs if there is one.
func (r *Receiver) Restart(ctx context.Context, resource string) error {
	r.mu.Lock()
	r.db.Close()
	err := r.connect(ctx)
	r.mu.Unlock()
	if err != nil || r.file.Blocks["restart"] == nil {
		return err
	}
	return r.plain(ctx, "restart", map[string]any{"resource": resource})
}

// plain runs a block whose rows do not matter, retried as a service would.
func (r *Receiver) plain(ctx context.Context, block string, args map[string]any) error {
	return giveUpStops(r.retry(ctx, func(tx *sql.Tx) error {
		_, err := r.run(ctx, tx, r.file.Blocks[block], args)
		return err
	}))
}

// Resource implements probe.Receiver: the read block's last row, or
// nothing when it returns none.
func (r *Receiver) Resource(ctx context.Context, name string) (probe.Holding, error) {
	var h probe.Holding
	err := r.retry(ctx, func(tx *sql.Tx) error {
		res, err := r.run(ctx, tx, r.file.Blocks["read"], map[string]any{"resource": name})
		if err != nil {
			return err
		}
		h, err = res.holding(r.file.Blocks["read"])
		return err
	})
	return h, giveUpStops(err)
}

// Write implements probe.Receiver: check (if any) and write in one
// transaction. A write whose outcome is not applied is rolled back, as a
// service that answers 409 would.
func (r *Receiver) Write(ctx context.Context, w probe.WriteRequest) (probe.Answer, error) {
	args := writeArgs(w)
	var a probe.Answer
	err := r.retry(ctx, func(tx *sql.Tx) error {
		var err error
		a, err = r.decide(ctx, tx, args, w.Token)
		if err == nil && a.Outcome != "applied" {
			err = errRollback
		}
		return err
	})
	var gu *gaveUp
	switch {
	case errors.As(err, &gu):
		return probe.Answer{Outcome: probe.GaveUp, Reason: gu.Error()}, nil
	case errors.Is(err, errRollback):
		return a, nil
	}
	return a, err
}

// errRollback ends a transaction without committing it.
var errRollback = errors.New("roll back")

func writeArgs(w probe.WriteRequest) map[string]any {
	args := map[string]any{"resource": w.Resource, "value": w.Value, "id": w.ID,
		"token": nil, "scope": nil, "op": nil, "expect_version": nil}
	if w.Token != nil {
		args["token"] = *w.Token
	}
	if w.ExpectVersion != nil {
		args["expect_version"] = *w.ExpectVersion // the version condition of an rmw write under cas
	}
	if w.Scope != nil {
		args["scope"] = *w.Scope
	}
	if w.Op != nil {
		args["op"] = *w.Op
	}
	return args
}

// decide runs check (deciding in the application's place) and write.
func (r *Receiver) decide(ctx context.Context, tx *sql.Tx, args map[string]any, token *int64) (probe.Answer, error) {
	if c := r.file.Blocks["check"]; c != nil {
		res, err := r.run(ctx, tx, c, args)
		if err != nil {
			return probe.Answer{}, err
		}
		ok, why, err := r.passes(res, c, args, token)
		switch {
		case err != nil:
			return probe.Answer{}, err
		case !ok:
			return probe.Answer{Outcome: "rejected", Reason: "block check: " + why}, nil
		}
	}
	b := r.file.Blocks["write"]
	res, err := r.run(ctx, tx, b, args)
	if err != nil {
		return probe.Answer{}, err
	}
	return res.outcome(b)
}

// passes decides after the check block as the application would: on the
// version it returned under cas, else on the token.
func (r *Receiver) passes(res *result, c *Block, args map[string]any, token *int64) (bool, string, error) {
	if !r.opt.Policy.ChecksVersion() {
		remembered, err := res.token(c)
		if err != nil {
			return false, "", err
		}
		ok, why := r.admits(token, remembered)
		return ok, why, nil
	}
	v, found := res.column("version")
	if !res.rows || !found {
		return false, "", res.broken(fmt.Sprintf("returns columns %v; under cas block check must return version", res.columns))
	}
	version, err := integer(v)
	if err != nil {
		return false, "", res.broken("version " + err.Error())
	}
	expect, _ := args["expect_version"].(int64)
	switch {
	case args["expect_version"] == nil:
		return true, "", nil
	case version == nil && expect == 0, version != nil && *version == expect:
		return true, "", nil
	}
	return false, fmt.Sprintf("stale: it returned version %s, the write expects %d", orNull(version), expect), nil
}

func orNull(v *int64) string {
	if v == nil {
		return "null"
	}
	return strconv.FormatInt(*v, 10)
}

// admits is the application's decision after its check.
func (r *Receiver) admits(t, remembered *int64) (bool, string) {
	switch {
	case !r.opt.Policy.ChecksToken():
		return true, ""
	case t == nil:
		return false, "the write carries no token"
	case remembered == nil:
		return true, ""
	case r.opt.Policy.Strict() && *t <= *remembered:
		return false, fmt.Sprintf("%d is not greater than %d, which it returned", *t, *remembered)
	case *t < *remembered:
		return false, fmt.Sprintf("%d < %d, which it returned", *t, *remembered)
	}
	return true, ""
}

// giveUpStops: only a write may give up quietly; a reset, read, grant or
// restart that never serializes ends the probe.
func giveUpStops(err error) error {
	var gu *gaveUp
	if errors.As(err, &gu) {
		return &probe.BrokenError{Where: "a transaction", Err: gu}
	}
	return err
}
