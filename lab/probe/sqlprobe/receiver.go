package sqlprobe

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
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

	vmu      sync.Mutex // guards what follows
	declared probe.Declaration
	empty    map[string]probe.Holding // each resource's empty state, as read after reset
	seen     map[string][]int64       // sequentially: the versions read, in order; [0] the empty state's
	given    map[int64]any            // a version as the database gave it (a date-time), by its number
}

var _ probe.Receiver = (*Receiver)(nil)
var _ probe.Declarer = (*Receiver)(nil)

// Open binds the file for the engine of db (see DSN), which finds every
// mistake in it before anything runs, then connects and checks that the
// database answers; an unreachable database is a *probe.UnreachableError.
func Open(ctx context.Context, f *File, db string, opt Options) (*Receiver, error) {
	engine, dsn, err := DSN(db)
	if err != nil {
		return nil, err
	}
	if f.cfg.Engine != engine || f.cfg.Policy != opt.Policy || f.Blocks == nil {
		if err := f.Bind(Config{Engine: engine, Policy: opt.Policy, Items: f.cfg.Items}); err != nil {
			return nil, err
		}
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
		target:   f.Name + " on " + Redact(db),
		declared: probe.Declaration{Resources: []string{"result"}, Scopes: []string{"job"}}}
	if err := r.connect(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// Declare implements probe.Declarer: reset and grant run per declared
// resource and scope, and the empty state is read for each resource.
func (r *Receiver) Declare(d probe.Declaration) {
	r.vmu.Lock()
	defer r.vmu.Unlock()
	if len(d.Resources) == 0 {
		d.Resources = []string{"result"}
	}
	r.declared = d
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

// Reset implements probe.Receiver: reset (each statement once per
// declared resource or scope it uses), then read once per declared
// resource, whose result is the empty state.
func (r *Receiver) Reset(ctx context.Context) error {
	r.vmu.Lock()
	d := r.declared
	r.empty, r.seen, r.given = nil, map[string][]int64{}, map[int64]any{}
	r.vmu.Unlock()
	err := giveUpStops(r.retry(ctx, func(tx *sql.Tx) error {
		_, err := r.each(ctx, tx, r.file.Blocks["reset"], args{}, d.Resources, d.Scopes)
		return err
	}))
	if err != nil {
		return err
	}
	empty := map[string]probe.Holding{}
	for _, name := range d.Resources {
		// A read that fails here fails again, with the step named, when
		// the probe first reads; until then the empty state is nothing.
		if h, err := r.read(ctx, name); err == nil {
			empty[name] = h
		}
	}
	r.vmu.Lock()
	r.empty = empty
	for name, h := range empty {
		r.seen[name] = []int64{orZero(h.Version)}
	}
	r.vmu.Unlock()
	return nil
}

func orZero(v *int64) int64 {
	if v == nil {
		return 0
	}
	return *v
}

// Grant implements probe.Receiver: probe.ErrNotSupported without a grant
// block. When grant's first query returns token, the rest runs only when
// the granted token is greater (the new holder's compare-and-set);
// otherwise the grant is rolled back.
func (r *Receiver) Grant(ctx context.Context, scope string, token int64) error {
	return r.GrantAs(ctx, scope, token, "")
}

// GrantAs is Grant with the holder granted, for :writer ("" binds NULL).
func (r *Receiver) GrantAs(ctx context.Context, scope string, token int64, writer string) error {
	b := r.file.Blocks["grant"]
	if b == nil {
		return probe.ErrNotSupported
	}
	r.vmu.Lock()
	res := r.declared.Resources
	r.vmu.Unlock()
	var args args
	args[fScope], args[fToken] = scope, token
	if writer != "" {
		args[fWriter] = writer
	}
	err := giveUpStops(r.retry(ctx, func(tx *sql.Tx) error {
		first := len(b.Queries[0].Statements)
		if last := b.Statements[first-1]; last.ReturnsRows() && last.reads("token") {
			head := &Block{Name: b.Name, Line: b.Line, Queries: b.Queries[:1], Statements: b.Statements[:first]}
			out, err := r.each(ctx, tx, head, args, res, []string{scope})
			if err != nil {
				return err
			}
			held, err := out.token()
			if err != nil {
				return err
			}
			if held != nil && token <= *held {
				return errRollback // the register holds that token or a higher one
			}
			rest := &Block{Name: b.Name, Line: b.Line, Queries: b.Queries[1:], Statements: b.Statements[first:]}
			_, err = r.each(ctx, tx, rest, args, res, []string{scope})
			return err
		}
		_, err := r.each(ctx, tx, b, args, res, []string{scope})
		return err
	}))
	if errors.Is(err, errRollback) {
		return nil
	}
	return err
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
	return giveUpStops(r.retry(ctx, func(tx *sql.Tx) error {
		_, err := r.run(ctx, tx, r.file.Blocks["restart"], &args{fResource: resource})
		return err
	}))
}

// Resource implements probe.Receiver: the read block's last row, or
// nothing when it returns none or the empty state. Versions are told as
// the probe counts them (see version).
func (r *Receiver) Resource(ctx context.Context, name string) (probe.Holding, error) {
	h, err := r.read(ctx, name)
	if err != nil {
		return h, err
	}
	r.vmu.Lock()
	defer r.vmu.Unlock()
	if e, ok := r.empty[name]; ok && (e.Value != nil || e.Token != nil || e.Version != nil) && sameHolding(e, h) {
		h = probe.Holding{NoToken: h.NoToken}
		if e.Version != nil {
			h.Version = new(int64)
		}
		return h, nil
	}
	if h.Version != nil {
		v := r.version(name, *h.Version)
		h.Version = &v
	}
	return h, nil
}

func sameHolding(a, b probe.Holding) bool {
	eqs := a.Value == nil && b.Value == nil || a.Value != nil && b.Value != nil && *a.Value == *b.Value
	eqt := a.Token == nil && b.Token == nil || a.Token != nil && b.Token != nil && *a.Token == *b.Token
	eqv := a.Version == nil && b.Version == nil || a.Version != nil && b.Version != nil && *a.Version == *b.Version
	return eqs && eqt && eqv
}

// version turns a version the database gave into the probe's. In order
// and in every ordering the probe counts the writes applied, while a
// receiver's version may rise by any step (a sequence, a revision): the
// distinct versions read since reset are numbered 0 (the empty state's),
// 1, 2… in the order they rose, and a version not above the highest
// reads as that highest's number, or as -1 when it is one never seen,
// which no model expects. Concurrently the versions pass as they are,
// the empty state's as 0. Call with vmu held.
func (r *Receiver) version(name string, raw int64) int64 {
	seen := r.seen[name]
	base := int64(0)
	if len(seen) > 0 {
		base = seen[0]
	}
	if r.declared.Concurrent {
		if raw == base {
			return 0
		}
		return raw
	}
	if i := slices.Index(seen, raw); i >= 0 {
		return int64(i)
	}
	if len(seen) == 0 || raw > seen[len(seen)-1] {
		r.seen[name] = append(seen, raw)
		return int64(len(seen))
	}
	return -1
}

// dbVersion is version's inverse, for a write's expect_version: the
// version as the database gave it (a date-time stays one).
func (r *Receiver) dbVersion(name string, v int64) any {
	r.vmu.Lock()
	defer r.vmu.Unlock()
	seen := r.seen[name]
	raw := v
	switch {
	case r.declared.Concurrent && v == 0 && len(seen) > 0:
		raw = seen[0]
	case r.declared.Concurrent:
	case v >= 0 && int(v) < len(seen):
		raw = seen[v]
	}
	if g, ok := r.given[raw]; ok {
		return g
	}
	return raw
}

// read runs the read block.
func (r *Receiver) read(ctx context.Context, name string) (probe.Holding, error) {
	var h probe.Holding
	var given any
	err := r.retry(ctx, func(tx *sql.Tx) error {
		res, err := r.run(ctx, tx, r.file.Blocks["read"], &args{fResource: name})
		if err != nil {
			return err
		}
		h, err = res.holding(r.opt.Policy.ChecksVersion())
		given = res.version
		return err
	})
	if _, isInt := given.(int64); err == nil && h.Version != nil && given != nil && !isInt {
		r.vmu.Lock()
		if r.given == nil {
			r.given = map[int64]any{}
		}
		r.given[*h.Version] = given
		r.vmu.Unlock()
	}
	return h, giveUpStops(err)
}

// Write implements probe.Receiver: check (if any) and write in one
// transaction. A write whose outcome is not applied is rolled back, as a
// service that answers 409 would; one refused by an error refused-on
// names is rejected.
func (r *Receiver) Write(ctx context.Context, w probe.WriteRequest) (probe.Answer, error) {
	args := r.writeArgs(w)
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
	var rf *refusal
	switch {
	case errors.As(err, &gu):
		return probe.Answer{Outcome: probe.GaveUp, Reason: gu.Error()}, nil
	case errors.As(err, &rf):
		return probe.Answer{Outcome: "rejected", Reason: rf.Error()}, nil
	case errors.Is(err, errRollback):
		return a, nil
	}
	return a, err
}

// errRollback ends a transaction without committing it.
var errRollback = errors.New("roll back")

func (r *Receiver) writeArgs(w probe.WriteRequest) *args {
	a := &args{fResource: w.Resource, fValue: w.Value, fID: w.ID}
	if w.Token != nil {
		a[fToken] = *w.Token
	}
	if w.ExpectVersion != nil {
		a[fExpect] = r.dbVersion(w.Resource, *w.ExpectVersion) // the version condition of an rmw write under cas
	}
	if w.Scope != nil {
		a[fScope] = *w.Scope
	}
	if w.Op != nil {
		a[fOp] = *w.Op
	}
	if w.Writer != "" {
		a[fWriter] = w.Writer
	}
	return a
}

// decide runs check (deciding in the application's place, or as the
// check's own outcome says) and write.
func (r *Receiver) decide(ctx context.Context, tx *sql.Tx, args *args, token *int64) (probe.Answer, error) {
	if c := r.file.Blocks["check"]; c != nil {
		res, err := r.run(ctx, tx, c, args)
		if err != nil {
			return probe.Answer{}, err
		}
		if o, found := res.column("outcome"); found {
			s := text(o)
			switch {
			case s == nil || *s == "applied":
			case *s == "rejected" || *s == "suppressed":
				why, _ := res.column("reason")
				return probe.Answer{Outcome: *s, Reason: reasonOf(why, "block check said "+*s)}, nil
			default:
				return probe.Answer{}, res.broken(fmt.Sprintf("returned outcome %v; use applied, suppressed or rejected", o))
			}
		} else {
			ok, why, err := r.passes(res, args, token)
			switch {
			case err != nil:
				return probe.Answer{}, err
			case !ok:
				return probe.Answer{Outcome: "rejected", Reason: "block check: " + why}, nil
			}
		}
	}
	res, err := r.run(ctx, tx, r.file.Blocks["write"], args)
	if err != nil {
		return probe.Answer{}, err
	}
	return res.outcome(r.file.outcomeRows)
}

// reasonOf is a reason column's text, else dflt.
func reasonOf(v any, dflt string) string {
	if s := text(v); s != nil && *s != "" {
		return *s
	}
	return dflt
}

// passes decides after the check block as the application would: on the
// version it returned under cas, else on the token.
func (r *Receiver) passes(res *result, args *args, token *int64) (bool, string, error) {
	if !r.opt.Policy.ChecksVersion() {
		remembered, err := res.token()
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
	version, _, err := versionOf(v)
	if err != nil {
		return false, "", res.broken("version " + err.Error())
	}
	var expect int64
	if e, _, err := versionOf(args[fExpect]); err == nil && e != nil {
		expect = *e
	}
	switch {
	case args[fExpect] == nil:
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

// admits is the application's decision after its check: decide= if the
// file says, else at least (greater under fenced-strict).
func (r *Receiver) admits(t, remembered *int64) (bool, string) {
	how := r.file.decide
	if how == "" {
		how = "at-least"
		if r.opt.Policy.Strict() {
			how = "greater"
		}
	}
	switch {
	case !r.opt.Policy.ChecksToken() && r.file.decide == "":
		return true, ""
	case t == nil:
		return false, "the write carries no token"
	case how == "equal" && remembered == nil:
		return false, "it returned no token; decide=equal passes only a write whose token equals it"
	case how == "equal" && *t != *remembered:
		return false, fmt.Sprintf("%d is not %d, which it returned (decide=equal)", *t, *remembered)
	case remembered == nil:
		return true, ""
	case how == "greater" && *t <= *remembered:
		return false, fmt.Sprintf("%d is not greater than %d, which it returned", *t, *remembered)
	case how == "at-least" && *t < *remembered:
		return false, fmt.Sprintf("%d < %d, which it returned", *t, *remembered)
	}
	return true, ""
}

// giveUpStops: only a write may give up quietly or be refused by an
// error refused-on names; a reset, read, grant or
// restart that never serializes ends the probe.
func giveUpStops(err error) error {
	var gu *gaveUp
	var rf *refusal
	switch {
	case errors.As(err, &gu):
		return &probe.BrokenError{Where: "a transaction", Err: gu}
	case errors.As(err, &rf): // refused-on speaks of writes only
		var se *stmtError
		if errors.As(rf.err, &se) {
			return &probe.BrokenError{Where: se.where, Err: se.err}
		}
		return &probe.BrokenError{Where: "a transaction", Err: rf.err}
	}
	return err
}
