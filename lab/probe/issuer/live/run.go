package live

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"fencelab/lab/probe/issuer"
)

// Options are a run's shape beyond the issuer.
type Options struct {
	Workers  int
	Duration time.Duration
	Interval time.Duration
	FaultFor time.Duration
	Nemesis  []string // the faults, injected in turn
	Seed     int64
	// Cluster is the issuer the probe started (nil: not started by it).
	Cluster Cluster
	// Exe is the program the workers run (default: this one).
	Exe string
	// Log gets progress notes (stderr) and the first 4 KiB each worker
	// writes to its stderr. Run's goroutines write to it in turn, so it
	// need not be safe for concurrent use.
	Log io.Writer
}

// Cluster is an issuer the probe started, which it can break.
type Cluster interface {
	Kind() string
	Endpoints() []string
	Version() string
	Members() []string
	Leader(ctx context.Context) (string, error)
	Signal(member string, sig syscall.Signal) error
	Kill(member string) error
	Restart(ctx context.Context, member string) error
	// Partition cuts a member off from the others; Heal ends it.
	Partition(member string) error
	Heal(member string) error
	// Failover (Redis with replicas) kills the primary and promotes a
	// replica; Rejoin starts the old primary again as a replica.
	Failover(ctx context.Context) (old string, err error)
	Rejoin(ctx context.Context, member string) error
	Stop()
}

// Result is what a run recorded.
type Result struct {
	History []issuer.Op
	TTL     time.Duration // what the issuer granted
	Version string
	Start   time.Time // the wall clock at time 0
	End     float64
}

// ProbeIssuer checks that the issuer answers (within cfg.Timeout) and
// returns its version and the TTL it grants; for SQL it runs reset.
func ProbeIssuer(ctx context.Context, cfg *Config) (version string, ttl time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	type answer struct {
		v   string
		ttl time.Duration
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		v, t, err := probeIssuer(ctx, cfg)
		ch <- answer{v, t, err}
	}()
	select {
	case a := <-ch:
		return a.v, a.ttl, a.err
	case <-ctx.Done():
		return "", 0, fmt.Errorf("%s: no answer within --timeout %s", cfg.String(), cfg.Timeout)
	}
}

// Run starts the workers, injects the faults and records the history
// until the duration ends; then it stops every worker by its PID.
func Run(ctx context.Context, cfg Config, opt Options) (*Result, error) {
	exe := opt.Exe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	// The fault goroutines and every worker's stderr write to one Log,
	// which need not be safe for concurrent use: they take turns.
	notes := &syncLog{w: opt.Log}
	if opt.Log != nil {
		opt.Log = notes
	}
	r := &runner{opt: opt, pending: map[string]map[int64]line{}, holder: map[string]bool{}}
	start := time.Now()
	r.t0 = mono()
	cfg.Time0 = r.t0
	var procs []*exec.Cmd
	var readers sync.WaitGroup
	defer func() {
		for _, p := range procs {
			if p.Process != nil {
				p.Process.Signal(syscall.SIGCONT)
				p.Process.Kill()
				p.Wait()
			}
		}
	}()
	for i := 1; i <= opt.Workers; i++ {
		wc := cfg
		wc.Name = fmt.Sprintf("w%d", i)
		wc.Seed = opt.Seed*100 + int64(i)
		b, _ := json.Marshal(wc)
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), workerEnv+"="+string(b))
		cmd.Stderr = &limited{log: notes, n: 4096}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("start worker %s: %w", wc.Name, err)
		}
		procs = append(procs, cmd)
		r.workers = append(r.workers, wc.Name)
		r.pids = append(r.pids, cmd.Process.Pid)
		readers.Add(1)
		go func() {
			defer readers.Done()
			r.read(out)
		}()
	}
	ctx, cancel := context.WithTimeout(ctx, opt.Duration)
	defer cancel()
	var nemesis sync.WaitGroup
	nemesis.Add(1)
	go func() {
		defer nemesis.Done()
		r.nemesis(ctx)
	}()
	<-ctx.Done()
	nemesis.Wait()
	end := since(r.t0)
	for _, p := range procs {
		p.Process.Signal(syscall.SIGCONT)
		p.Process.Kill()
	}
	for _, p := range procs {
		p.Wait()
	}
	readers.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	for w, ps := range r.pending {
		for _, l := range ps {
			r.history = append(r.history, issuer.Op{Worker: w, Op: l.Op.Op, Sent: l.Sent, Answered: end,
				Result: issuer.Unknown, Error: issuer.CutOff, Token: l.Token, Owner: l.Owner, Value: l.Value})
		}
	}
	issuer.SortByAnswer(r.history)
	missedPauses(r.history)
	return &Result{History: r.history, Start: start, End: end}, nil
}

type runner struct {
	opt     Options
	t0      int64
	workers []string
	pids    []int

	mu      sync.Mutex
	history []issuer.Op
	pending map[string]map[int64]line
	holder  map[string]bool // granted, release not sent
	granted chan string     // a grant, for a waiting pause-holder
}

func (r *runner) read(out io.Reader) {
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var l line
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		r.mu.Lock()
		ps := r.pending[l.Worker]
		if ps == nil {
			ps = map[int64]line{}
			r.pending[l.Worker] = ps
		}
		if l.Mark == "sending" {
			ps[l.ID] = l
			if l.Op.Op == issuer.OpRelease {
				delete(r.holder, l.Worker)
			}
			if l.Op.Op == issuer.OpAcquire {
				delete(r.holder, l.Worker)
			}
			r.mu.Unlock()
			continue
		}
		if s, ok := ps[l.ID]; ok {
			l.Sent = s.Sent
		}
		delete(ps, l.ID)
		r.history = append(r.history, l.Op)
		switch {
		case l.Op.Op == issuer.OpAcquire && l.Result == issuer.Granted:
			r.holder[l.Worker] = true
			if r.granted != nil {
				select {
				case r.granted <- l.Worker:
				default:
				}
			}
		case l.Result == issuer.Lost:
			delete(r.holder, l.Worker)
		}
		r.mu.Unlock()
	}
}

// nemesis injects fault k at k × Interval, in turn, each for FaultFor,
// none starting later than FaultFor before the end.
func (r *runner) nemesis(ctx context.Context) {
	if len(r.opt.Nemesis) == 0 {
		return
	}
	rnd := rand.New(rand.NewPCG(uint64(r.opt.Seed), 11))
	last := r.opt.Duration.Seconds() - r.opt.FaultFor.Seconds()
	for k := 1; ; k++ {
		due := float64(k) * r.opt.Interval.Seconds()
		if due > last {
			return
		}
		if wait := due - since(r.t0); wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Duration(wait * float64(time.Second))):
			}
		}
		if since(r.t0) > last {
			return
		}
		kind := r.opt.Nemesis[(k-1)%len(r.opt.Nemesis)]
		op := r.inject(ctx, kind, rnd)
		r.mu.Lock()
		r.history = append(r.history, op)
		r.mu.Unlock()
		if r.opt.Log != nil {
			fmt.Fprintf(r.opt.Log, "fault: %s %s %.2f–%.2f s%s\n",
				op.Op, op.Target, op.Sent, op.Answered, map[bool]string{true: " (missed)"}[op.Missed])
		}
	}
}

func (r *runner) pidOf(w string) int {
	for i, n := range r.workers {
		if n == w {
			return r.pids[i]
		}
	}
	return 0
}

func (r *runner) currentHolder() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, w := range r.workers {
		if r.holder[w] {
			return w
		}
	}
	return ""
}

// sleepFor waits d, or less when ctx ends first (the fault is then
// healed at once).
func sleepFor(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func (r *runner) inject(ctx context.Context, kind string, rnd *rand.Rand) issuer.Op {
	op := issuer.Op{Worker: issuer.Nemesis, Op: kind, Sent: since(r.t0)}
	c := r.opt.Cluster
	fail := func(err error) issuer.Op {
		op.Answered, op.Missed = since(r.t0), true
		if r.opt.Log != nil {
			fmt.Fprintf(r.opt.Log, "fault %s failed: %v\n", kind, err)
		}
		return op
	}
	switch kind {
	case "pause-holder":
		w := r.currentHolder()
		if w == "" {
			ch := make(chan string, 1)
			r.mu.Lock()
			r.granted = ch
			r.mu.Unlock()
			select {
			case w = <-ch:
			case <-time.After(r.opt.FaultFor):
			case <-ctx.Done():
			}
			r.mu.Lock()
			r.granted = nil
			r.mu.Unlock()
		}
		if w == "" {
			return fail(errors.New("nobody held the lock"))
		}
		op.Target, op.Sent = w, since(r.t0)
		p, _ := os.FindProcess(r.pidOf(w))
		p.Signal(syscall.SIGSTOP)
		// a release already sent: the pause stopped no holder
		r.mu.Lock()
		for _, l := range r.pending[w] {
			if l.Op.Op == issuer.OpRelease && l.Sent < op.Sent {
				op.Missed = true
			}
		}
		r.mu.Unlock()
		sleepFor(ctx, r.opt.FaultFor)
		op.Answered = since(r.t0)
		p.Signal(syscall.SIGCONT)
		return op
	case "pause-leader", "pause-member", "kill-leader", "kill-member", "partition-leader", "partition-member":
		m, err := r.pick(ctx, kind, rnd)
		if err != nil {
			return fail(err)
		}
		op.Target, op.Sent = m, since(r.t0)
		switch {
		case strings.HasPrefix(kind, "pause"):
			err = c.Signal(m, syscall.SIGSTOP)
		case strings.HasPrefix(kind, "kill"):
			err = c.Kill(m)
		default:
			err = c.Partition(m)
		}
		if err != nil {
			return fail(err)
		}
		sleepFor(ctx, r.opt.FaultFor)
		op.Answered = since(r.t0)
		switch {
		case strings.HasPrefix(kind, "pause"):
			err = c.Signal(m, syscall.SIGCONT)
		case strings.HasPrefix(kind, "kill"):
			err = c.Restart(context.Background(), m)
		default:
			err = c.Heal(m)
		}
		if err != nil && r.opt.Log != nil {
			fmt.Fprintf(r.opt.Log, "healing %s of %s: %v\n", kind, m, err)
		}
		return op
	case "kill-all":
		op.Target = strings.Join(c.Members(), ",")
		for _, m := range c.Members() {
			c.Kill(m)
		}
		sleepFor(ctx, r.opt.FaultFor)
		op.Answered = since(r.t0)
		for _, m := range c.Members() {
			if err := c.Restart(context.Background(), m); err != nil && r.opt.Log != nil {
				fmt.Fprintf(r.opt.Log, "restarting %s: %v\n", m, err)
			}
		}
		return op
	case "failover":
		fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		old, err := c.Failover(fctx)
		cancel()
		op.Target = old
		if err != nil {
			return fail(err)
		}
		sleepFor(ctx, r.opt.FaultFor)
		op.Answered = since(r.t0)
		if err := c.Rejoin(context.Background(), old); err != nil && r.opt.Log != nil {
			fmt.Fprintf(r.opt.Log, "restarting %s as a replica: %v\n", old, err)
		}
		return op
	}
	return fail(fmt.Errorf("fault %s is not supported by this issuer", kind))
}

// pick is the leader, or a member other than it drawn with the seed.
func (r *runner) pick(ctx context.Context, kind string, rnd *rand.Rand) (string, error) {
	c := r.opt.Cluster
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	leader, err := c.Leader(lctx)
	if err != nil {
		return "", err
	}
	if strings.HasSuffix(kind, "leader") {
		return leader, nil
	}
	var others []string
	for _, m := range c.Members() {
		if m != leader {
			others = append(others, m)
		}
	}
	if len(others) == 0 {
		return "", errors.New("no member besides the leader")
	}
	return others[rnd.IntN(len(others))], nil
}

// syncLog lets the goroutines of a run write to one Log in turn.
type syncLog struct {
	mu sync.Mutex
	w  io.Writer // nil: the notes go nowhere
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w != nil {
		l.w.Write(p)
	}
	return len(p), nil
}

// limited passes at most n bytes of a worker's stderr on to the run's log.
type limited struct {
	log *syncLog
	n   int // guarded by log.mu
}

func (l *limited) Write(p []byte) (int, error) {
	l.log.mu.Lock()
	defer l.log.mu.Unlock()
	if l.log.w != nil && l.n > 0 {
		q := p[:min(len(p), l.n)]
		l.n -= len(q)
		l.log.w.Write(q)
	}
	return len(p), nil
}

// missedPauses marks a pause-holder missed when its holder had sent its
// release (after its last grant) before the SIGSTOP landed: it paused
// nobody who held the lock.
func missedPauses(h []issuer.Op) {
	for i := range h {
		f := &h[i]
		if f.Worker != issuer.Nemesis || f.Op != "pause-holder" || f.Missed {
			continue
		}
		granted := -1.0
		for _, op := range h {
			if op.Worker == f.Target && op.Op == issuer.OpAcquire && op.Result == issuer.Granted && op.Answered <= f.Sent {
				granted = max(granted, op.Answered)
			}
		}
		for _, op := range h {
			if op.Worker == f.Target && (op.Op == issuer.OpRelease || op.Result == issuer.Lost) && op.Sent >= granted && op.Sent < f.Sent {
				f.Missed = true
			}
		}
	}
}
