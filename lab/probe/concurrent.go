package probe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"fencelab/lab"
)

// ConcurrentOptions shape the concurrent mode.
type ConcurrentOptions struct {
	Workers  int
	Duration time.Duration
	Resource string // the resource every worker writes; "result" when empty
	// KeepGoing runs for the whole duration even after a violation; by
	// default the probe stops at the first one it notices.
	KeepGoing bool
}

// leaseScope is the scope of the one lease the workers take turns at.
const leaseScope = "job"

// run is the shared state of one concurrent run.
type run struct {
	p        *Prober
	opt      ConcurrentOptions
	start    time.Time
	tick     atomic.Int64 // the shared counter of Record.Sent and Answered
	next     atomic.Int64 // the lease service's next token
	seq      atomic.Int64
	acked    atomic.Int64 // the highest token (cas: expected version) acknowledged so far
	versions sync.Map     // cas: the expected versions acknowledged applied, to notice one twice
	stop     atomic.Bool
	// cas: the highest version a read answered so far, and the first read
	// that returned less than one answered before it was sent.
	readMax  atomic.Int64
	readBack atomic.Pointer[Violation]
	checker  Checker
	mu       sync.Mutex
	firstErr error
}

// Concurrent runs W workers that take turns at a lease and write at the
// receiver at the same time, some late on purpose, then checks the
// history. The error is set only when the receiver cannot be reached at
// the start.
func (p *Prober) Concurrent(ctx context.Context, opt ConcurrentOptions) (*Result, error) {
	if err := CheckConcurrentPolicy(p.Policy); err != nil {
		return nil, err
	}
	if opt.Resource == "" {
		opt.Resource = "result"
	}
	if d, ok := p.Client.(Declarer); ok {
		d.Declare(Declaration{Resources: []string{opt.Resource}, Scopes: []string{leaseScope}, Concurrent: true})
	}
	if err := p.Client.Reset(ctx); err != nil {
		return nil, err
	}
	r := &run{p: p, opt: opt, start: time.Now(),
		checker: Checker{Strict: p.Policy.Strict(), Idempotent: p.Policy.Idempotent(), Versions: p.Policy.ChecksVersion()}}
	r.next.Store(1)
	r.acked.Store(math.MinInt64)
	r.readMax.Store(math.MinInt64)
	ctx, cancel := context.WithTimeout(ctx, opt.Duration)
	defer cancel()
	recs := make([][]Record, opt.Workers)
	var wg sync.WaitGroup
	for w := range opt.Workers {
		if p.Policy.ChecksVersion() {
			wg.Go(func() { recs[w] = r.casWorker(ctx, w+1) })
			continue
		}
		wg.Go(func() { recs[w] = r.worker(ctx, w+1) })
	}
	done := make(chan struct{})
	go r.report(ctx, done)
	wg.Wait()
	close(done)
	elapsed := time.Since(r.start)
	all := merge(recs)
	return r.result(context.WithoutCancel(ctx), all, elapsed)
}

// CheckConcurrentPolicy says why the concurrent mode cannot check p: it
// checks fencing (a policy that checks tokens) or lost updates (one that
// checks versions, cas).
func CheckConcurrentPolicy(p lab.Policy) error {
	if err := CheckPolicy(p); err != nil {
		return err
	}
	if !p.ChecksToken() && !p.ChecksVersion() {
		return fmt.Errorf("the concurrent mode checks fencing or lost updates: give a fenced policy or cas, not %s", p)
	}
	return nil
}

// report tells Progress how much of the duration has passed.
func (r *run) report(ctx context.Context, done chan struct{}) {
	if r.p.Progress == nil {
		return
	}
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	total := int(r.opt.Duration / time.Millisecond)
	for {
		select {
		case <-done:
			return
		case <-t.C:
			r.p.Progress(min(int(time.Since(r.start)/time.Millisecond), total), total)
		}
	}
}

// worker loops: acquire a token, write with it once or twice, sometimes
// retry a write with its op key, and sometimes come back late with the old
// token after a newer one was acknowledged.
func (r *run) worker(ctx context.Context, id int) []Record {
	rng := rand.New(rand.NewPCG(uint64(id), uint64(r.start.UnixNano())))
	out := make([]Record, 0, 1024)
	var old int64
	n := 0
	for !r.stop.Load() && ctx.Err() == nil {
		if old > 0 && rng.IntN(3) == 0 && r.acked.Load() > old {
			n++
			out = r.write(out, id, old, fmt.Sprintf("late-w%d-%d", id, n), "")
			continue
		}
		t := r.next.Add(1) - 1
		if r.p.Policy.Registers() {
			out = r.grant(out, id, t)
		}
		for range 1 + rng.IntN(2) {
			n++
			op := ""
			if r.p.Policy.Idempotent() {
				op = fmt.Sprintf("w%d-op%d", id, n)
			}
			out = r.write(out, id, t, fmt.Sprintf("w%d-%d", id, n), op)
			if op != "" && rng.IntN(4) == 0 {
				out = r.write(out, id, t, fmt.Sprintf("w%d-%d", id, n), op) // a retry
			}
		}
		old = t
	}
	return out
}

func (r *run) write(out []Record, worker int, token int64, value, op string) []Record {
	floor := r.acked.Load() // before the tick: see Record
	rec := Record{Seq: int(r.seq.Add(1)), Worker: worker, Token: token, Op: op, Value: value}
	scope := leaseScope
	w := WriteRequest{
		Resource: r.opt.Resource,
		Value:    value,
		Token:    &token,
		Scope:    &scope,
		ID:       fmt.Sprintf("#%d", rec.Seq),
		Writer:   fmt.Sprintf("w%d", worker),
	}
	if op != "" {
		w.Op = &op
	}
	r.send(&rec, w)
	if rec.Outcome == "applied" {
		if token < floor || r.checker.Strict && token == floor {
			r.noticed()
		}
		r.raise(token)
	}
	return append(out, rec)
}

func (r *run) grant(out []Record, worker int, token int64) []Record {
	rec := Record{Seq: int(r.seq.Add(1)), Worker: worker, Grant: true, Token: token}
	rec.Sent, rec.SentAt = r.tick.Add(1), time.Since(r.start)
	err := grant(context.Background(), r.p.Client, leaseScope, token, fmt.Sprintf("w%d", worker))
	rec.Answered, rec.AnsweredAt = r.tick.Add(1), time.Since(r.start)
	rec.Outcome = "ok"
	if err != nil {
		rec.Outcome = "error"
		r.fail(err)
	} else {
		r.raise(token)
	}
	return append(out, rec)
}

// raise records an acknowledged token.
func (r *run) raise(t int64) {
	for {
		cur := r.acked.Load()
		if t <= cur || r.acked.CompareAndSwap(cur, t) {
			return
		}
	}
}

// noticed stops the run at the first violation a worker sees, unless told
// to keep going. The checker finds it again, exactly, afterwards.
func (r *run) noticed() {
	if !r.opt.KeepGoing {
		r.stop.Store(true)
	}
}

// fail keeps the first error; an unreachable receiver or one that gives
// up on the contract (/grants missing) stops the run.
func (r *run) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.firstErr == nil {
		r.firstErr = err
	}
	if stops(err) || errors.Is(err, ErrNotSupported) {
		r.stop.Store(true)
	}
}

func merge(parts [][]Record) []Record {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	all := make([]Record, 0, n)
	for _, p := range parts {
		all = append(all, p...)
	}
	return all
}

// send sends w and records, in rec, the ticks and times it was sent and
// answered and its outcome ("error" when the receiver could not say).
func (r *run) send(rec *Record, w WriteRequest) {
	rec.Sent, rec.SentAt = r.tick.Add(1), time.Since(r.start)
	a, err := r.p.Client.Write(context.Background(), w)
	rec.Answered, rec.AnsweredAt = r.tick.Add(1), time.Since(r.start)
	rec.Outcome = a.Outcome
	if err != nil {
		rec.Outcome = "error"
		r.fail(err)
	}
}
