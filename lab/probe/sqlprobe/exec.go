package sqlprobe

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"fencelab/lab/probe"
)

// stmtError is a statement the database refused, before the retry
// decides whether it is a serialization failure.
type stmtError struct {
	where string
	err   error
}

func (e *stmtError) Error() string { return e.where + ": " + e.err.Error() }
func (e *stmtError) Unwrap() error { return e.err }

// gaveUp is a transaction still failing to serialize after every retry.
type gaveUp struct {
	tries int
	last  error
}

func (e *gaveUp) Error() string {
	return fmt.Sprintf("gave up after %d retries (--retries); the last failure: %v", e.tries, e.last)
}

// refusal is a write the receiver refused by an error that refused-on
// names.
type refusal struct {
	code string
	err  error
}

func (e *refusal) Error() string {
	return fmt.Sprintf("refused by the database (%s, refused-on): %v", e.code, e.err)
}

// retry runs fn in a transaction, again after a serialization failure,
// with a backoff doubling from 1 ms to 100 ms, up to Retries times. An
// error refused-on names is a *refusal, never retried.
func (r *Receiver) retry(ctx context.Context, fn func(*sql.Tx) error) error {
	backoff := time.Millisecond
	var last error
	for try := 0; try <= r.opt.Retries; try++ {
		if try > 0 {
			if err := sleep(ctx, backoff); err != nil {
				return err
			}
			backoff = min(2*backoff, 100*time.Millisecond)
		}
		err := r.once(ctx, fn)
		if err == nil || errors.Is(err, errRollback) {
			return err
		}
		var se *stmtError
		if errors.As(err, &se) {
			if code := r.engine.refusedBy(se.err, r.file.refused); code != "" {
				return &refusal{code, se}
			}
		}
		if se == nil || !retryable(se.err) {
			return r.fatal(err)
		}
		last = err
	}
	return &gaveUp{r.opt.Retries, last}
}

// fatal turns a statement error into the probe's: unreachable when the
// connection is gone, broken otherwise.
func (r *Receiver) fatal(err error) error {
	var se *stmtError
	var ne net.Error
	switch {
	case errors.As(err, &ne) || errors.Is(err, sql.ErrConnDone):
		return &probe.UnreachableError{Request: r.target, Err: err}
	case errors.As(err, &se):
		return &probe.BrokenError{Where: se.where, Err: se.err}
	}
	return err
}

func (r *Receiver) once(ctx context.Context, fn func(*sql.Tx) error) error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	tx, err := r.db.BeginTx(ctx, &sql.TxOptions{Isolation: r.iso})
	if err != nil {
		return &stmtError{"BEGIN (isolation " + strings.ToLower(r.iso.String()) + ")", err}
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return &stmtError{"COMMIT", err}
	}
	return nil
}

// result is what a block's last statement gave: its rows (the last one
// kept) or the count of rows the database reports.
type result struct {
	stmt     Statement
	block    *Block
	rows     bool
	columns  []string // as facts where an item renames them, else lower case
	last     []any    // nil when it returned no row
	affected int64
	version  any // a read's version as the database gave it
}

// run runs a block's statements in tx.
func (r *Receiver) run(ctx context.Context, tx *sql.Tx, b *Block, args *args) (*result, error) {
	var res *result
	for _, st := range b.Statements {
		var err error
		if res, err = r.runOne(ctx, tx, b, st, args); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// each runs a block of reset or grant: a statement that uses resource
// once per resource, one that uses scope once per scope, one that uses
// both once per pair, the others once.
func (r *Receiver) each(ctx context.Context, tx *sql.Tx, b *Block, base args, resources, scopes []string) (*result, error) {
	var res *result
	for _, st := range b.Statements {
		rs, ss := []any{base[fResource]}, []any{base[fScope]}
		if st.uses["resource"] {
			rs = toAny(resources)
		}
		if st.uses["scope"] && b.Name == "reset" {
			ss = toAny(scopes)
		}
		for _, rn := range rs {
			for _, sn := range ss {
				a := base
				a[fResource], a[fScope] = rn, sn
				var err error
				if res, err = r.runOne(ctx, tx, b, st, &a); err != nil {
					return nil, err
				}
			}
		}
	}
	return res, nil
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// runOne runs one statement of a block with the facts in args.
func (r *Receiver) runOne(ctx context.Context, tx *sql.Tx, b *Block, st Statement, args *args) (*result, error) {
	p := st.plan
	a := make([]any, len(p.binds))
	for i, src := range p.binds {
		if src.fact != "" {
			a[i] = args[src.fi]
		} else {
			a[i] = src.lit
		}
	}
	res := &result{stmt: st, block: b, rows: st.rows}
	var err error
	if res.rows {
		err = res.query(ctx, tx, p.q, a)
	} else {
		err = res.exec(ctx, tx, p.q, a)
	}
	if err != nil {
		return nil, &stmtError{where(b, st), r.engine.rename(err, p.names)}
	}
	return res, nil
}

// where names a block's statement for a message: its query when the
// query is not named after the role.
func where(b *Block, st Statement) string {
	q := ""
	if !strings.EqualFold(st.Query, b.Name) {
		q = " query " + st.Query + ","
	}
	return fmt.Sprintf("block %s,%s statement %d (line %d: %s)", b.Name, q, st.Index, st.Line, clip(st.Text))
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return s
}

func (res *result) exec(ctx context.Context, tx *sql.Tx, q string, a []any) error {
	sr, err := tx.ExecContext(ctx, q, a...)
	if err != nil {
		return err
	}
	res.affected, err = sr.RowsAffected()
	return err
}

func (res *result) query(ctx context.Context, tx *sql.Tx, q string, a []any) error {
	rows, err := tx.QueryContext(ctx, q, a...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if res.columns, err = rows.Columns(); err != nil {
		return err
	}
	for i, c := range res.columns {
		c = strings.ToLower(c)
		if f := res.stmt.cols[c]; f != "" {
			c = f
		}
		res.columns[i] = c
	}
	for _, f := range columnFacts {
		if countOf(res.columns, f) > 1 {
			return fmt.Errorf("returns columns %v: two of them read as %s; rename one (-- fencelab: %s: "+
				"COLUMN=%s) or leave one out", res.columns, f, res.stmt.Query, f)
		}
	}
	for rows.Next() {
		vals := make([]any, len(res.columns))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		res.last = vals
	}
	return rows.Err()
}

func countOf(ss []string, s string) int {
	n := 0
	for _, x := range ss {
		if x == s {
			n++
		}
	}
	return n
}

// column returns the last row's value of a column; found is false when
// the statement returns no such column.
func (res *result) column(name string) (v any, found bool) {
	i := slices.Index(res.columns, name)
	if i < 0 {
		return nil, false
	}
	if res.last == nil {
		return nil, true
	}
	return res.last[i], true
}

func (res *result) broken(msg string) error {
	return &probe.BrokenError{Where: where(res.block, res.stmt), Err: errors.New(msg)}
}

// holding reads the read block's value and token columns (token may be
// missing under cas), and its version column when it has one (a receiver
// that claims cas needs it).
func (res *result) holding(cas bool) (probe.Holding, error) {
	v, okV := res.column("value")
	t, okT := res.column("token")
	if !res.rows || !okV || (!okT && !cas) {
		return probe.Holding{}, res.broken(fmt.Sprintf("returns columns %v; block read must return value and token", res.columns))
	}
	var h probe.Holding
	h.Value = text(v)
	tok, err := integer(t)
	if err != nil {
		return h, res.broken("token " + err.Error())
	}
	h.Token, h.NoToken = tok, !okT
	if v, ok := res.column("version"); ok {
		if h.Version, res.version, err = versionOf(v); err != nil {
			return h, res.broken("version " + err.Error())
		}
	}
	return h, nil
}

// timeLayouts are the date-times a version may be written in, for a
// driver that returns them as text.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999-07",
	"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"}

// versionOf reads a version: an integer, or a date-time, as its
// microseconds since 1970 (so that time order is number order), with the
// value as the database gave it, to send back as expect_version.
func versionOf(v any) (*int64, any, error) {
	if t, ok := v.(time.Time); ok {
		n := t.UnixMicro()
		return &n, t, nil
	}
	n, err := integer(v)
	if err == nil || v == nil {
		return n, v, err
	}
	s := strings.TrimSpace(*text(v))
	for _, l := range timeLayouts {
		if t, terr := time.Parse(l, s); terr == nil {
			m := t.UnixMicro()
			return &m, s, nil
		}
	}
	return nil, nil, fmt.Errorf("%q is neither an integer nor a date-time", s)
}

// token reads the check block's token column.
func (res *result) token() (*int64, error) {
	t, ok := res.column("token")
	if !res.rows || !ok {
		return nil, res.broken(fmt.Sprintf("returns columns %v; block check must return token", res.columns))
	}
	tok, err := integer(t)
	if err != nil {
		return nil, res.broken("token " + err.Error())
	}
	return tok, nil
}

// outcome reads the write block's answer: its last row's outcome column
// with its reason (no row: rejected), any row under outcome=rows, or the
// count of rows (at least one: applied).
func (res *result) outcome(anyRow bool) (probe.Answer, error) {
	line := fmt.Sprintf("block write, line %d", res.stmt.Line)
	if !strings.EqualFold(res.stmt.Query, "write") {
		line = fmt.Sprintf("block write, query %s, line %d", res.stmt.Query, res.stmt.Line)
	}
	if !res.rows {
		if res.affected >= 1 {
			return probe.Answer{Outcome: "applied"}, nil
		}
		return probe.Answer{Outcome: "rejected", Reason: line + ": 0 rows changed"}, nil
	}
	if anyRow {
		if res.last != nil {
			return probe.Answer{Outcome: "applied"}, nil
		}
		return probe.Answer{Outcome: "rejected", Reason: line + ": no row returned (outcome=rows)"}, nil
	}
	o, ok := res.column("outcome")
	why, _ := res.column("reason")
	switch s := text(o); {
	case !ok:
		return probe.Answer{}, res.broken(fmt.Sprintf("returns columns %v; a write that returns rows must return a column outcome", res.columns))
	case res.last == nil:
		return probe.Answer{Outcome: "rejected", Reason: line + ": no row returned"}, nil
	case s != nil && *s == "applied":
		return probe.Answer{Outcome: *s}, nil
	case s != nil && (*s == "suppressed" || *s == "rejected"):
		return probe.Answer{Outcome: *s, Reason: reasonOf(why, "")}, nil
	}
	return probe.Answer{}, res.broken(fmt.Sprintf("returned outcome %v; use applied, suppressed or rejected", o))
}

// text is a column's value as a string, nil for NULL.
func text(v any) *string {
	var s string
	switch x := v.(type) {
	case nil:
		return nil
	case []byte:
		s = string(x)
	case string:
		s = x
	default:
		s = fmt.Sprint(x)
	}
	return &s
}

// integer is a column's value as a token, nil for NULL.
func integer(v any) (*int64, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case int64:
		return &x, nil
	case int32:
		n := int64(x)
		return &n, nil
	}
	s := text(v)
	n, err := strconv.ParseInt(strings.TrimSpace(*s), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%q is not an integer", *s)
	}
	return &n, nil
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
