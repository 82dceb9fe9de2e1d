package live

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"fencelab/lab"
	"fencelab/lab/probe"
	"fencelab/lab/probe/issuer"
	"fencelab/lab/probe/sqlprobe"
)

// Receiver names the receiver the holders write to, with --target or
// --sql: each holder writes to the resource "result" with its token right
// after its grant and again just before its release.
type Receiver struct {
	Target  string // an HTTP receiver's base URL
	SQLName string // or a statement file …
	SQLText string
	DB      string // … and its database
	Policy  string
}

// Resource is the one resource the holders write.
const Resource = "result"

// OpenReceiver opens the receiver the config names.
func OpenReceiver(ctx context.Context, r *Receiver, timeout time.Duration, conns int) (probe.Receiver, func(), error) {
	if r.Target != "" {
		c, err := probe.NewClient(r.Target, timeout, conns)
		if err != nil {
			return nil, nil, err
		}
		return c, c.Close, nil
	}
	f, err := sqlprobe.Parse(r.SQLName, strings.NewReader(r.SQLText))
	if err != nil {
		return nil, nil, err
	}
	s, err := sqlprobe.Open(ctx, f, r.DB, sqlprobe.Options{Policy: lab.Policy(r.Policy), Conns: conns})
	if err != nil {
		return nil, nil, err
	}
	return s, func() { s.Close() }, nil
}

// write sends the holder's write and records it.
func (w *worker) write(ctx context.Context, owner string, token int64, k int) {
	if w.rcv == nil {
		return
	}
	value := fmt.Sprintf("%s-%d", owner, k)
	tok := token
	id, _ := w.rec.sendOp(issuer.Op{Op: issuer.OpWrite, Token: &tok, Owner: owner, Value: value})
	c, cancel := w.timeout(ctx)
	a, err := w.rcv.Write(c, probe.WriteRequest{Resource: Resource, Value: value, Token: &tok, ID: value})
	cancel()
	res := a.Outcome
	if res == probe.GaveUp {
		err = errors.New("gave up after every retry of a serialization failure")
	}
	w.rec.done(id, issuer.Op{Op: issuer.OpWrite, Result: res, Token: &tok, Owner: owner, Value: value}, err)
}

// CheckReceiver runs the receiver probe's own concurrent checker over the
// history's writes, with what the resource held at the end: its first
// broken rule in words, or "".
func CheckReceiver(history []issuer.Op, policy lab.Policy, final *probe.Holding) string {
	var writes []issuer.Op
	for _, op := range history {
		if op.Op == issuer.OpWrite { // one cut off at the end may have been applied: an error
			writes = append(writes, op)
		}
	}
	if len(writes) == 0 {
		return ""
	}
	// Ticks: the ranks of every sending and answer, in time.
	type ev struct {
		at   float64
		i    int
		sent bool
	}
	var evs []ev
	for i, op := range writes {
		evs = append(evs, ev{op.Sent, i, true}, ev{op.Answered, i, false})
	}
	sort.SliceStable(evs, func(a, b int) bool { return evs[a].at < evs[b].at })
	recs := make([]probe.Record, len(writes))
	for i, op := range writes {
		n, _ := strconv.Atoi(strings.TrimPrefix(op.Worker, "w"))
		out := op.Result
		if out == issuer.Unknown {
			out = "error"
		}
		recs[i] = probe.Record{Seq: i + 1, Worker: n, Token: *op.Token, Value: op.Value, Outcome: out,
			SentAt: time.Duration(op.Sent * float64(time.Second)), AnsweredAt: time.Duration(op.Answered * float64(time.Second))}
	}
	for tick, e := range evs {
		if e.sent {
			recs[e.i].Sent = int64(tick)
		} else {
			recs[e.i].Answered = int64(tick)
		}
	}
	c := probe.Checker{Strict: policy.Strict(), Idempotent: policy.Idempotent()}
	if v := c.Check(recs, final); v != nil {
		return v.Words
	}
	return ""
}
