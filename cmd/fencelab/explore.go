package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"fencelab/lab"
	"fencelab/scenarios"
)

// exploreFlags are the options of `fencelab explore`.
type exploreFlags struct {
	source   replayFlags // the scenario: file, - or --scenario
	json     bool
	budget   int
	deadline time.Duration
	writes   lab.Writes
	expiry   lab.Expiry
	workers  int
}

// explore tries every ordering the workers' programs allow and prints, per
// policy, how many orderings break which invariant. Interrupted (Ctrl-C),
// at the deadline or at the budget, it prints what it counted so far.
func explore(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	f, err := parseExploreFlags(args, piped(stdin))
	if err != nil {
		return err
	}
	lib, err := lab.LoadLibrary(scenarios.FS, scenarios.Order())
	if err != nil {
		return err
	}
	s, err := loadScenario("explore", f.source, lib, stdin)
	if err != nil {
		return reportInvalid(err, stderr)
	}
	ctx, stop := interruptible(f.deadline)
	defer stop()
	// A large exploration's memory is a few large arrays without pointers,
	// cheap for the collector to look at: past a million states, collecting
	// at a tenth more than what is live, not twice, keeps the process near
	// what it holds. (Below that, 10% of a small heap would mean a
	// collection every few hundred kilobytes.)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	lowered := false
	progress := func(states int) { // called by one goroutine at a time
		if !lowered && states > 1_000_000 {
			lowered = true
			debug.SetGCPercent(10)
		}
	}
	x := lab.Explore(ctx, s, lab.ExploreOptions{Budget: f.budget, Writes: f.writes, Expiry: f.expiry,
		Workers: f.workers, RunAll: runAll, Progress: progress})
	if f.json {
		return writeJSON(stdout, x)
	}
	return writeExploration(stdout, s, x)
}

// runAll runs the explorer's tasks each on its own goroutine.
func runAll(tasks []func()) {
	var wg sync.WaitGroup
	for _, t := range tasks {
		wg.Go(t)
	}
	wg.Wait()
}

func parseExploreFlags(args []string, stdinPiped bool) (exploreFlags, error) {
	var f exploreFlags
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.source.scenario, "scenario", "", "a built-in scenario by name")
	fs.BoolVar(&f.json, "json", false, "print the exploration JSON")
	fs.IntVar(&f.budget, "budget", lab.DefaultBudget, "the most distinct states to visit")
	fs.IntVar(&f.workers, "workers", runtime.GOMAXPROCS(0), "explore on this many cores at once (the result is the same)")
	fs.DurationVar(&f.deadline, "deadline", 0, "stop after this long, as in 10s (0: no deadline)")
	var writes, expiry string
	fs.StringVar(&writes, "writes", "split", "split: a write is a send and a delivery; atomic: one step")
	fs.StringVar(&expiry, "expiry", "free", "free: the clock expires a lease at any time; program: in the worker's order")
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			return f, &usageError{"explore: " + err.Error()}
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	var errW, errE error
	f.writes, errW = lab.ParseWrites(writes)
	f.expiry, errE = lab.ParseExpiry(expiry)
	switch {
	case errW != nil:
		return f, &usageError{"explore: --writes must be split or atomic, got " + strconv.Quote(writes)}
	case errE != nil:
		return f, &usageError{"explore: --expiry must be free or program, got " + strconv.Quote(expiry)}
	case len(files) > 1:
		return f, &usageError{"explore: give one scenario file"}
	case len(files) == 1 && f.source.scenario != "":
		return f, &usageError{"explore: give a file or --scenario, not both"}
	case len(files) == 0 && f.source.scenario == "" && !stdinPiped:
		return f, &usageError{"explore: give a scenario file, - for stdin, or --scenario NAME"}
	case f.budget < 1:
		return f, &usageError{fmt.Sprintf("explore: --budget must be at least 1, got %d", f.budget)}
	case f.workers < 1:
		return f, &usageError{fmt.Sprintf("explore: --workers must be at least 1, got %d", f.workers)}
	case f.deadline < 0:
		return f, &usageError{fmt.Sprintf("explore: --deadline must not be negative, got %s", f.deadline)}
	case len(files) == 1:
		f.source.file = files[0]
	case f.source.scenario == "":
		f.source.file = "-"
	}
	return f, nil
}

// writeExploration prints a headline, the explored events by number (the
// orderings refer to them), then a line per policy.
func writeExploration(w io.Writer, s *lab.Scenario, x *lab.Exploration) error {
	fmt.Fprintf(w, "%s\n\n%s\n\n", s.Title, headline(x))
	fmt.Fprintf(w, "Events explored (%s):\n", rules(x))
	for i, e := range x.Events {
		fmt.Fprintf(w, "%4d  %s\n", i+1, strings.TrimSpace(e.Actor+" "+lab.DescribeEvent(e)))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, pe := range x.Policies {
		fmt.Fprintf(tw, "%s\t%s\n", pe.Policy, policyLine(x, pe))
	}
	return tw.Flush()
}

// rules says in words which switches the exploration ran with.
func rules(x *lab.Exploration) string {
	writes := "each write a send and its deliver"
	if x.Writes == lab.WritesAtomic {
		writes = "each write one step (--writes atomic)"
	}
	expiry := "an expire at any time after its grant"
	if x.Expiry == lab.ExpiryProgram {
		expiry = "an expire in its worker's order (--expiry program)"
	}
	return writes + "; " + expiry
}

func headline(x *lab.Exploration) string {
	states := fmt.Sprintf("%d events, %d distinct states", len(x.Events), x.States)
	switch x.Stopped {
	case "":
		return fmt.Sprintf("%s: all %s orderings explored", states, x.Orderings)
	case lab.StopBudget:
		return fmt.Sprintf("%s: stopped at the state budget (--budget); %s", states, partial(x))
	case lab.StopDeadline:
		return fmt.Sprintf("%s: stopped at the deadline (--deadline); %s", states, partial(x))
	}
	return fmt.Sprintf("%s: interrupted; %s", states, partial(x))
}

// partial says what a stopped exploration counted: the explorer takes all
// orderings a step at a time, so usually none yet.
func partial(x *lab.Exploration) string {
	if x.Orderings.Sign() == 0 {
		return "no ordering was followed to its end, so none is counted; the counterexamples are the shortest met"
	}
	return fmt.Sprintf("the counts cover the %s orderings explored, not all", x.Orderings)
}

// policyLine is "clean in all N orderings", or the policy's worst class
// with the orderings that reach it, the other classes' counts, and the
// counterexample that reaches the worst class first.
func policyLine(x *lab.Exploration, pe lab.PolicyExploration) string {
	c := pe.Counterexample
	switch {
	case c == nil && x.Complete:
		return fmt.Sprintf("clean in all %s orderings", x.Orderings)
	case c == nil:
		return "no violation met in the steps taken"
	}
	first := fmt.Sprintf("first %s: %s, %s at step %d", c.Class, orderText(c.Order), c.Invariant, c.Step)
	if !x.Complete {
		first = "shortest found " + first[len("first "):]
	}
	if !x.Complete && x.Orderings.Sign() == 0 {
		return fmt.Sprintf("reaches %s (no ordering counted yet); %s", c.Class, first)
	}
	var others []string
	for _, class := range lab.Classes() {
		if n := pe.ByClass[class]; class != c.Class && n.Sign() > 0 {
			others = append(others, fmt.Sprintf("%s %s", class, n))
		}
	}
	if clean := new(big.Int).Sub(x.Orderings, pe.AnyViolating); clean.Sign() > 0 {
		others = append(others, fmt.Sprintf("clean %s", clean))
	}
	line := fmt.Sprintf("%s in %s of %s orderings", c.Class, pe.ByClass[c.Class], x.Orderings)
	if len(others) > 0 {
		line += " (the others: " + strings.Join(others, ", ") + ")"
	}
	return line + "; " + first
}

// orderText shows an ordering as its events' 1-based indices.
func orderText(order []int) string {
	parts := make([]string, len(order))
	for i, n := range order {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, " ")
}

// interruptible is a command's context: done at Ctrl-C, or after deadline
// when it is positive. stop releases it.
func interruptible(deadline time.Duration) (ctx context.Context, stop func()) {
	ctx, cancelSignal := signal.NotifyContext(context.Background(), os.Interrupt)
	if deadline <= 0 {
		return ctx, cancelSignal
	}
	ctx, cancel := context.WithTimeout(ctx, deadline)
	return ctx, func() { cancel(); cancelSignal() }
}
