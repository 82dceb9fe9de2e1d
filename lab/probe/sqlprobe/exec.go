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

// retry runs fn in a transaction, again after a serialization failure,
// with a backoff doubling from 1 ms to 100 ms, up to Retries times.
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
		if !errors.As(err, &se) || !retryable(se.err) {
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
	columns  []string
	last     []any // nil when it returned no row
	affected int64
}

// run runs a block's statements in tx.
func (r *Receiver) run(ctx context.Context, tx *sql.Tx, b *Block, args map[string]any) (*result, error) {
	var res *result
	for i, st := range b.Statements {
		q, a := r.engine.render(st, args)
		res = &result{stmt: st, block: b, rows: st.ReturnsRows()}
		var err error
		if res.rows {
			err = res.query(ctx, tx, q, a)
		} else {
			err = res.exec(ctx, tx, q, a)
		}
		if err != nil {
			return nil, &stmtError{where(b, i), err}
		}
	}
	return res, nil
}

// where names a block's statement for a message.
func where(b *Block, i int) string {
	st := b.Statements[i]
	return fmt.Sprintf("block %s, statement %d (line %d: %s)", b.Name, i+1, st.Line, clip(st.Text))
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
	for i := range res.columns {
		res.columns[i] = strings.ToLower(res.columns[i])
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
	return &probe.BrokenError{Where: where(res.block, len(res.block.Statements)-1), Err: errors.New(msg)}
}

// holding reads the read block's value and token columns, and its
// version column when it has one (a receiver that claims cas needs it).
func (res *result) holding(b *Block) (probe.Holding, error) {
	v, okV := res.column("value")
	t, okT := res.column("token")
	if !res.rows || !okV || !okT {
		return probe.Holding{}, res.broken(fmt.Sprintf("returns columns %v; block read must return value and token", res.columns))
	}
	var h probe.Holding
	h.Value = text(v)
	tok, err := integer(t)
	if err != nil {
		return h, res.broken("token " + err.Error())
	}
	h.Token = tok
	if v, ok := res.column("version"); ok {
		if h.Version, err = integer(v); err != nil {
			return h, res.broken("version " + err.Error())
		}
	}
	return h, nil
}

// token reads the check block's token column.
func (res *result) token(b *Block) (*int64, error) {
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
// (no row: rejected), or the count of rows (at least one: applied).
func (res *result) outcome(b *Block) (probe.Answer, error) {
	if !res.rows {
		if res.affected >= 1 {
			return probe.Answer{Outcome: "applied"}, nil
		}
		return probe.Answer{Outcome: "rejected", Reason: fmt.Sprintf("block write, line %d: 0 rows changed", res.stmt.Line)}, nil
	}
	o, ok := res.column("outcome")
	switch s := text(o); {
	case !ok:
		return probe.Answer{}, res.broken(fmt.Sprintf("returns columns %v; a write that returns rows must return a column outcome", res.columns))
	case res.last == nil:
		return probe.Answer{Outcome: "rejected", Reason: fmt.Sprintf("block write, line %d: no row returned", res.stmt.Line)}, nil
	case s != nil && (*s == "applied" || *s == "suppressed" || *s == "rejected"):
		return probe.Answer{Outcome: *s}, nil
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
