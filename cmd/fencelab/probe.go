package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"fencelab/lab"
	"fencelab/lab/probe"
	"fencelab/lab/probe/sqlprobe"
	"fencelab/scenarios"
)

// probeFlags are the options of `fencelab probe`.
type probeFlags struct {
	source     replayFlags
	target     string
	policy     lab.Policy
	remember   lab.Remember
	orderings  string // "", "all" or N
	seed       int64
	seedSet    bool
	concurrent int
	duration   time.Duration
	timeout    time.Duration
	format     string
	save       string
	keepGoing  bool
	sql        sqlFlags
}

// disagreeError is a probe that found the receiver disagreeing with the
// model, already reported: exit code 1.
type disagreeError struct{}

func (disagreeError) Error() string { return "the receiver disagrees with the model" }

// runProbe plays a scenario (or concurrent writers) at a receiver and
// compares what it does with what the model expects.
func runProbe(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if isIssuerProbe(args) {
		return runIssuerProbe(args, stdout, stderr)
	}
	f, err := parseProbeFlags(args, piped(stdin))
	if err != nil {
		return err
	}
	var s *lab.Scenario
	if f.source.scenario != "" || f.source.file != "" {
		lib, err := lab.LoadLibrary(scenarios.FS, scenarios.Order())
		if err != nil {
			return err
		}
		if s, err = loadScenario("probe", f.source, lib, stdin); err != nil {
			return reportInvalid(err, stderr)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rcv, done, err := openReceiver(ctx, f, stderr)
	if err != nil {
		return err
	}
	defer done()
	p := &probe.Prober{Client: rcv, Policy: f.policy, Remember: f.remember}
	bar := newProgressBar(stderr)
	p.Progress = bar.show
	res, err := probeRun(ctx, p, s, f)
	bar.done()
	if err == nil {
		annotate(rcv, res)
	}
	if errors.Is(err, probe.ErrTooManyOrderings) {
		return &usageError{"probe: " + err.Error()}
	}
	if err != nil {
		return err
	}
	if err := writeReport(stdout, f.format, res, probe.WriteMarkdown, probe.WriteText); err != nil {
		return err
	}
	if f.save != "" {
		if err := saveProbe(ctx, p, f.save, s, res, linkOut(f.format, stdout, stderr), stderr); err != nil {
			return err
		}
	}
	if res.Verdict == probe.Disagree {
		return disagreeError{}
	}
	return nil
}

func probeRun(ctx context.Context, p *probe.Prober, s *lab.Scenario, f probeFlags) (*probe.Result, error) {
	switch {
	case f.concurrent > 0:
		opt := probe.ConcurrentOptions{Workers: f.concurrent, Duration: f.duration, KeepGoing: f.keepGoing}
		if s != nil && len(s.Resources) == 1 {
			opt.Resource = lab.SortedNames(s.Resources)[0]
		}
		return p.Concurrent(ctx, opt)
	case f.orderings != "":
		opt := probe.OrderingsOptions{Seed: f.seed}
		if f.orderings != "all" {
			opt.N, _ = strconv.Atoi(f.orderings)
		}
		return p.Orderings(ctx, s, opt)
	}
	return p.Sequential(ctx, s)
}

// writeReport prints a probe's report, the receiver probe's or the
// issuer probe's, in the format asked: its JSON, or what its Markdown or
// text writer makes of it.
func writeReport[R any](w io.Writer, format string, r R, markdown, text func(io.Writer, R) error) error {
	switch format {
	case "json":
		return writeJSON(w, r)
	case "markdown":
		return markdown(w, r)
	}
	return text(w, r)
}

// linkOut is where a probe prints a saved run's link: below a table on
// stdout, on stderr beside JSON or Markdown, which stay clean.
func linkOut(format string, stdout, stderr io.Writer) io.Writer {
	if format != "table" {
		return stderr
	}
	return stdout
}

func parseProbeFlags(args []string, stdinPiped bool) (probeFlags, error) {
	var f probeFlags
	fs := flag.NewFlagSet("probe", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.source.scenario, "scenario", "", "a built-in scenario by name")
	fs.StringVar(&f.target, "target", "", "the receiver's base URL")
	policy := fs.String("policy", "fenced", "the policy the receiver claims")
	remember := fs.String("remember", "durable", "durable, or memory for a receiver that forgets its token on restart")
	fs.StringVar(&f.orderings, "orderings", "", "all, or N orderings drawn at random")
	seed := fs.String("seed", "", "the seed of --orderings N (default: from the clock, printed)")
	fs.IntVar(&f.concurrent, "concurrent", 0, "W workers writing at the same time")
	fs.DurationVar(&f.duration, "duration", 10*time.Second, "how long --concurrent runs")
	fs.DurationVar(&f.timeout, "timeout", 5*time.Second, "the longest wait for one answer")
	fs.StringVar(&f.format, "format", "table", "table, markdown or json")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	fs.StringVar(&f.save, "save", "", "a fencelab server's base URL: save what the probe saw there and print its link")
	fs.BoolVar(&f.keepGoing, "keep-going", false, "with --concurrent, run the whole duration after a violation")
	fs.StringVar(&f.sql.file, "sql", "", "a file of named SQL blocks (reset, write, read, check, grant, "+
		"restart): probe the statements your service runs")
	fs.StringVar(&f.sql.db, "db", "", "with --sql: postgres://…, mysql://user:pass@host:port/db (MySQL, MariaDB) or a SQLite file")
	fs.StringVar(&f.sql.isolation, "isolation", "", "with --sql: read committed, repeatable read or "+
		"serializable, when the file has no -- isolation: line")
	fs.IntVar(&f.sql.retries, "retries", sqlprobe.DefaultRetries, "with --sql: how often a serialization failure or deadlock is retried")
	fs.Var(&itemFlag{"--role", &f.sql.items}, "role", "with --sql: role map items (write=UpdateJob,SetState "+
		"check=GetJob refused-on=23505), as a -- fencelab: line; repeatable")
	fs.Var(&itemFlag{"--param", &f.sql.items}, "param", "with --sql: parameter map items ('$1=token' 'GetJob: "+
		"@id=resource'), as a -- fencelab: line; repeatable")
	files, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return f, &usageError{"probe: its options:\n" + flagList(fs)}
	}
	if err != nil {
		return f, &usageError{"probe: " + err.Error()}
	}
	if *asJSON {
		f.format = "json"
	}
	f.policy, f.remember = lab.Policy(*policy), lab.Remember(*remember)
	if *seed != "" {
		f.seed, err = strconv.ParseInt(*seed, 10, 64)
		f.seedSet = err == nil
	} else {
		f.seed = time.Now().UnixNano() % 1_000_000
	}
	if err != nil {
		return f, &usageError{fmt.Sprintf("probe: --seed %q is not an integer", *seed)}
	}
	return f, checkProbeFlags(&f, files, stdinPiped)
}

func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return files, nil
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func checkProbeFlags(f *probeFlags, files []string, stdinPiped bool) error {
	usage := func(format string, a ...any) error { return &usageError{"probe: " + fmt.Sprintf(format, a...)} }
	if err := probe.CheckPolicy(f.policy); err != nil {
		return usage("%v", err)
	}
	n, nerr := strconv.Atoi(f.orderings)
	switch {
	case checkSQLFlags(f) != nil:
		return checkSQLFlags(f)
	case f.remember != lab.Durable && f.remember != lab.Memory:
		return usage("--remember %q: use durable or memory", f.remember)
	case f.format != "table" && f.format != "markdown" && f.format != "json":
		return usage("unknown format %q: use table, markdown or json", f.format)
	case f.orderings != "" && f.orderings != "all" && (nerr != nil || n < 1):
		return usage("--orderings %q: use all or a number of at least 1", f.orderings)
	case f.concurrent < 0 || f.concurrent > 256:
		return usage("--concurrent %d: use 1 to 256 workers", f.concurrent)
	case f.concurrent > 0 && f.orderings != "":
		return usage("give --concurrent or --orderings, not both")
	case f.duration <= 0 || f.timeout <= 0:
		return usage("--duration and --timeout must be positive")
	case f.concurrent > 0 && f.save != "":
		return usage("--save keeps a scenario's steps; the concurrent mode has none")
	case f.concurrent > 0 && probe.CheckConcurrentPolicy(f.policy) != nil:
		return usage("%v", probe.CheckConcurrentPolicy(f.policy))
	case len(files) > 1:
		return usage("give one scenario file")
	case len(files) == 1 && f.source.scenario != "":
		return usage("give a file or --scenario, not both")
	case len(files) == 1:
		f.source.file = files[0]
	case f.source.scenario == "" && stdinPiped && f.concurrent == 0:
		f.source.file = "-"
	case f.source.scenario == "" && f.concurrent == 0:
		return usage("give a scenario file, - for stdin, or --scenario NAME (or --concurrent W)")
	}
	return nil
}

// newProgressBar draws on stderr only when it is a terminal.
func newProgressBar(stderr io.Writer) *progressBar {
	f, ok := stderr.(*os.File)
	return &progressBar{w: stderr, on: ok && isTerminal(f)}
}

type progressBar struct {
	w    io.Writer
	on   bool
	used bool
	last time.Time
}

func (b *progressBar) show(done, total int) {
	if !b.on || total <= 0 || time.Since(b.last) < 100*time.Millisecond && done < total {
		return
	}
	b.used, b.last = true, time.Now()
	const width = 30
	filled := width * done / total
	bar := make([]byte, width)
	for i := range bar {
		bar[i] = '.'
		if i < filled {
			bar[i] = '#'
		}
	}
	fmt.Fprintf(b.w, "\r[%s] %d/%d", bar, done, total)
}

func (b *progressBar) done() {
	if b.used {
		fmt.Fprint(b.w, "\r\033[K")
	}
}

// saveProbe stores the observation at a fencelab server and prints its
// link on linkOut.
func saveProbe(ctx context.Context, p *probe.Prober, base string, s *lab.Scenario, res *probe.Result, linkOut, stderr io.Writer) error {
	sc, err := p.SavedScenario(s, res)
	if errors.Is(err, probe.ErrNothingToSave) {
		fmt.Fprintf(stderr, "fencelab: --save: %v\n", err)
		return nil
	}
	if err != nil {
		return err
	}
	link, err := probe.Save(ctx, base, sc, res)
	if err != nil {
		return err
	}
	fmt.Fprintf(linkOut, "saved: %s\n", link)
	return nil
}

// flagList lists a command's options with their defaults, for --help.
func flagList(fs *flag.FlagSet) string {
	var b strings.Builder
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	return b.String()
}
