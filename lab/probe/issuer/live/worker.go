package live

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"fencelab/lab/probe"
	"fencelab/lab/probe/issuer"
)

// workerEnv carries a worker's Config to the process the probe starts.
const workerEnv = "FENCELAB_ISSUER_WORKER"

// WorkerMain runs this process as an issuer probe's worker when the probe
// started it so, and never returns then; otherwise it returns at once.
// Call it first in main (and in TestMain of tests that run the probe).
func WorkerMain() {
	v := os.Getenv(workerEnv)
	if v == "" {
		return
	}
	var cfg Config
	if err := json.Unmarshal([]byte(v), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, "fencelab worker:", err)
		os.Exit(2)
	}
	if err := runWorker(context.Background(), &cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fencelab worker:", err)
		os.Exit(2)
	}
	os.Exit(0)
}

// line is what a worker writes: an operation's answer, or with Mark
// "sending" the request about to leave (so the probe knows what is in
// flight: the holder's release, what a stop cuts off).
type line struct {
	issuer.Op
	ID   int64  `json:"id"`
	Mark string `json:"mark,omitempty"`
}

// recorder writes the worker's lines, one at a time.
type recorder struct {
	mu   sync.Mutex
	out  io.Writer
	buf  []byte
	name string
	t0   int64
	id   int64
}

func (r *recorder) write(l line) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = appendLine(r.buf[:0], &l)
	r.out.Write(r.buf)
}

// send marks a request leaving and returns its id and time.
func (r *recorder) send(op string) (int64, float64) {
	return r.sendOp(issuer.Op{Op: op})
}

// sendOp marks a request leaving with what it carries (a write's token
// and value), so that one cut off at the end keeps them.
func (r *recorder) sendOp(op issuer.Op) (int64, float64) {
	r.mu.Lock()
	r.id++
	id := r.id
	r.mu.Unlock()
	op.Worker, op.Sent = r.name, since(r.t0)
	r.write(line{Op: op, ID: id, Mark: "sending"})
	return id, op.Sent
}

// done records the answer.
func (r *recorder) done(id int64, op issuer.Op, err error) {
	op.Worker, op.Answered = r.name, since(r.t0)
	if err != nil {
		op.Result, op.Error = issuer.Unknown, err.Error()
	}
	r.write(line{Op: op, ID: id})
}

// runWorker takes the lock in turn until the probe kills it: acquire,
// hold for Hold renewing every TTL/3, release; after an unknown answer it
// clears what it may have left and backs off.
func runWorker(ctx context.Context, cfg *Config, out io.Writer) error {
	quiet()
	rec := &recorder{out: out, name: cfg.Name, t0: cfg.Time0}
	lock, err := newLock(ctx, cfg)
	if err != nil {
		return err
	}
	defer lock.Close()
	rnd := rand.New(rand.NewPCG(uint64(cfg.Seed), 7))
	w := &worker{cfg: cfg, rec: rec, lock: lock, rnd: rnd}
	if cfg.Receiver != nil {
		rcv, done, err := OpenReceiver(ctx, cfg.Receiver, cfg.Timeout, 1)
		if err != nil {
			return err
		}
		defer done()
		w.rcv = rcv
	}
	return w.loop(ctx)
}

type worker struct {
	cfg     *Config
	rec     *recorder
	lock    Lock
	rnd     *rand.Rand
	rcv     probe.Receiver // nil without --target or --sql
	attempt int
	backoff time.Duration

	mu      sync.Mutex
	lost    chan struct{} // closed when the session is lost
	stopRen func()
}

func (w *worker) timeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, w.cfg.Timeout)
}

// fail backs off after an unknown answer: 50 ms doubling to 1 s.
func (w *worker) fail() {
	w.backoff = min(max(2*w.backoff, 50*time.Millisecond), time.Second)
	time.Sleep(w.backoff)
}

func (w *worker) loop(ctx context.Context) error {
	sessioned := false
	for {
		if !sessioned {
			ok, err := w.session(ctx)
			if err != nil {
				w.fail()
				continue
			}
			sessioned = ok
			if !ok {
				sessioned = true // no sessions (Redis, SQL): nothing to open
			}
		}
		w.attempt++
		owner := fmt.Sprintf("%s-%d", w.cfg.Name, w.attempt)
		actx, cancel := w.acquireContext(ctx)
		id, _ := w.rec.send(issuer.OpAcquire)
		tok, granted, err := w.lock.Acquire(actx, owner)
		lostMeanwhile := actx.Err() != nil && ctx.Err() == nil && w.isLost()
		cancel()
		op := issuer.Op{Op: issuer.OpAcquire, Result: issuer.Refused}
		switch {
		case err != nil && lostMeanwhile:
			op.Result, op.Error = issuer.Unknown, issuer.GaveUp+": the session was lost"
		case err != nil && actx.Err() == context.DeadlineExceeded && w.lock.Blocking():
			op.Result, op.Error = issuer.Unknown, issuer.GaveUp
		case granted:
			op.Result, op.Token, op.Owner = issuer.Granted, &tok, owner
		}
		w.rec.done(id, op, err)
		if err != nil {
			w.clear(ctx)
			sessioned = !w.sessions()
			w.fail()
			continue
		}
		w.backoff = 0
		if !granted {
			time.Sleep(w.pollPause())
			continue
		}
		w.write(ctx, owner, tok, 1)
		lost, unknown := w.hold(ctx)
		if lost {
			if w.sessions() {
				w.clear(ctx)
				sessioned = false
			}
			continue
		}
		w.write(ctx, owner, tok, 2) // after the hold: late, if the holder was paused
		rid, _ := w.rec.send(issuer.OpRelease)
		rctx, rcancel := w.timeout(ctx)
		ok, err := w.lock.Release(rctx)
		rcancel()
		res := issuer.Gone
		if ok {
			res = issuer.Released
		}
		w.rec.done(rid, issuer.Op{Op: issuer.OpRelease, Result: res}, err)
		if err != nil || unknown {
			w.clear(ctx)
			sessioned = !w.sessions()
			w.fail()
			continue
		}
		time.Sleep(time.Duration(w.rnd.Int64N(int64(20 * time.Millisecond))))
	}
}

func (w *worker) sessions() bool { return w.lock.Blocking() }

func (w *worker) pollPause() time.Duration {
	p := min(max(w.cfg.TTL/20, 20*time.Millisecond), 200*time.Millisecond)
	return p/2 + time.Duration(w.rnd.Int64N(int64(p)))
}

// acquireContext: a blocking acquire waits up to five TTLs (or 10 s),
// and ends when the session is lost; others wait one --timeout.
func (w *worker) acquireContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if !w.lock.Blocking() {
		return w.timeout(ctx)
	}
	c, cancel := context.WithTimeout(ctx, max(5*w.cfg.TTL, 10*time.Second))
	w.mu.Lock()
	lost := w.lost
	w.mu.Unlock()
	go func() {
		select {
		case <-lost:
			cancel()
		case <-c.Done():
		}
	}()
	return c, cancel
}

func (w *worker) isLost() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case <-w.lost:
		return true
	default:
		return false
	}
}

// session opens an etcd lease or ZooKeeper session and starts its
// renewals, every TTL/3 for its whole life.
func (w *worker) session(ctx context.Context) (bool, error) {
	if w.stopRen != nil {
		w.stopRen()
		w.stopRen = nil
	}
	sctx, cancel := w.timeout(ctx)
	defer cancel()
	if !w.lock.Blocking() {
		return false, nil
	}
	id, _ := w.rec.send(issuer.OpSession)
	ok, err := w.lock.Session(sctx)
	if !ok {
		return false, err
	}
	w.rec.done(id, issuer.Op{Op: issuer.OpSession, Result: issuer.Opened}, err)
	if err != nil {
		return true, err
	}
	lost := make(chan struct{})
	w.mu.Lock()
	w.lost = lost
	w.mu.Unlock()
	rctx, stop := context.WithCancel(ctx)
	w.stopRen = stop
	go func() {
		t := time.NewTicker(w.lock.TTL() / 3)
		defer t.Stop()
		for {
			select {
			case <-rctx.Done():
				return
			case <-t.C:
			}
			if !w.renew(rctx) {
				close(lost)
				return
			}
		}
	}()
	return true, nil
}

// renew records one renewal; false when the lease was lost.
func (w *worker) renew(ctx context.Context) bool {
	id, _ := w.rec.send(issuer.OpRenew)
	c, cancel := w.timeout(ctx)
	ok, err := w.lock.Renew(c)
	cancel()
	if ctx.Err() != nil {
		return true
	}
	res := issuer.Lost
	if ok {
		res = issuer.Renewed
	}
	w.rec.done(id, issuer.Op{Op: issuer.OpRenew, Result: res}, err)
	return err != nil || ok
}

// hold keeps the lock for Hold: renewing every TTL/3 itself (Redis, SQL)
// or watching the session's renewals (etcd, ZooKeeper). lost: the lease
// ended under it; unknown: a renewal got no answer.
func (w *worker) hold(ctx context.Context) (lost, unknown bool) {
	deadline := time.Now().Add(w.cfg.Hold)
	end := time.After(w.cfg.Hold)
	if w.sessions() {
		w.mu.Lock()
		l := w.lost
		w.mu.Unlock()
		select {
		case <-end:
			return false, false
		case <-l:
			return true, false
		}
	}
	t := time.NewTicker(w.cfg.TTL / 3)
	defer t.Stop()
	for {
		select {
		case <-end:
			return false, unknown
		case <-t.C:
		}
		if time.Now().After(deadline) {
			// a holder resumed after a pause finishes its work first, as
			// a process back from a GC pause would: its late write
			return false, unknown
		}
		id, _ := w.rec.send(issuer.OpRenew)
		c, cancel := w.timeout(ctx)
		ok, err := w.lock.Renew(c)
		cancel()
		res := issuer.Lost
		if ok {
			res = issuer.Renewed
		}
		w.rec.done(id, issuer.Op{Op: issuer.OpRenew, Result: res}, err)
		if err == nil && !ok {
			return true, false
		}
		unknown = unknown || err != nil
	}
}

// clear removes what an unknown answer may have left behind.
func (w *worker) clear(ctx context.Context) {
	c, cancel := w.timeout(ctx)
	defer cancel()
	w.lock.Clear(c)
	if w.stopRen != nil && w.sessions() {
		w.stopRen()
		w.stopRen = nil
	}
}
