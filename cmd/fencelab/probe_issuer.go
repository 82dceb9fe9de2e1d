package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"time"

	"fencelab/lab"
	"fencelab/lab/probe"
	"fencelab/lab/probe/issuer"
	"fencelab/lab/probe/issuer/live"
	"fencelab/lab/probe/sqlprobe"
)

// issuerFlags are the options of `fencelab probe --issuer`.
type issuerFlags struct {
	url, sqlFile, db, lock, isolation string
	retries, workers                  int
	ttl, hold, duration, timeout      time.Duration
	interval, faultFor                time.Duration
	seed                              int64
	start, config, nemesis            string
	format, history, out, save        string
	target, recvSQL, issuerDB, policy string
}

// isIssuerProbe: the command line names an issuer, not a receiver.
func isIssuerProbe(args []string) bool {
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && (name == "issuer" || name == "issuer-sql") {
			return true
		}
	}
	return false
}

func parseIssuerFlags(args []string) (issuerFlags, []string, error) {
	var f issuerFlags
	fs := flag.NewFlagSet("probe --issuer", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.url, "issuer", "", "etcd://h:p[,h:p]/PREFIX, zk://h:p[,h:p]/PATH or redis://[user:pass@]h:p/KEY[?db=N]")
	fs.StringVar(&f.sqlFile, "issuer-sql", "", "a lease table's statements: blocks acquire, renew, release, optional reset")
	fs.StringVar(&f.db, "db", "", "with --issuer-sql: postgres://…, mysql://user:pass@host:port/db or a SQLite file")
	fs.StringVar(&f.lock, "lock", "fencelab", "with --issuer-sql: the lock's name, passed as :lock")
	fs.StringVar(&f.isolation, "isolation", "", "with --issuer-sql: read committed, repeatable read or serializable")
	fs.IntVar(&f.retries, "retries", sqlprobe.DefaultRetries, "with --issuer-sql: how often a serialization failure is retried")
	fs.IntVar(&f.workers, "workers", 4, "worker processes, 1 to 16")
	fs.DurationVar(&f.ttl, "ttl", 2*time.Second, "the lease's TTL, at least 1s")
	fs.DurationVar(&f.hold, "hold", 0, "how long a worker holds the lock (default: half the TTL)")
	fs.DurationVar(&f.duration, "duration", 30*time.Second, "how long the workers run")
	fs.DurationVar(&f.timeout, "timeout", 5*time.Second, "the longest wait for one answer")
	seed := fs.String("seed", "", "the seed of the faults' draws (default: from the clock, printed)")
	fs.StringVar(&f.start, "start", "", "local[=N]: start the issuer on loopback, from the binaries on PATH")
	fs.StringVar(&f.config, "config", "", "with --start: the team's own configuration file")
	fs.StringVar(&f.nemesis, "nemesis", "", "the faults, in turn (default: every one that applies; none for "+
		"an issuer the probe did not start)")
	fs.DurationVar(&f.interval, "interval", 10*time.Second, "fault k is due at k × interval")
	fs.DurationVar(&f.faultFor, "fault-for", 0, "how long each fault lasts (default: the larger of 3s and twice the TTL)")
	fs.StringVar(&f.format, "format", "table", "table, markdown or json")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	fs.StringVar(&f.history, "history", "", "write every operation to FILE, one JSON object a line")
	fs.StringVar(&f.out, "o", "", "write the run as a lab scenario to FILE")
	fs.StringVar(&f.save, "save", "", "a fencelab server's base URL: save the run there and print its link")
	fs.StringVar(&f.target, "target", "", "a receiver's base URL: each holder writes to it with its token")
	fs.StringVar(&f.recvSQL, "sql", "", "a receiver's statement file (reset, write, read …) on --db: each holder writes with its token")
	fs.StringVar(&f.issuerDB, "issuer-db", "", "with --issuer-sql and --sql: the issuer's database, when not --db")
	fs.StringVar(&f.policy, "policy", "fenced", "with a receiver: the policy it claims (fenced, fenced-strict or fenced-idempotent)")
	extra, err := parseArgs(fs, args)
	usage := func(format string, a ...any) error { return &usageError{"probe: " + fmt.Sprintf(format, a...)} }
	if errors.Is(err, flag.ErrHelp) {
		return f, nil, usage("its options with --issuer:\n%s", flagList(fs))
	}
	if err != nil {
		return f, nil, usage("%v", err)
	}
	if *asJSON {
		f.format = "json"
	}
	if *seed != "" {
		if f.seed, err = strconv.ParseInt(*seed, 10, 64); err != nil {
			return f, nil, usage("--seed %q is not an integer", *seed)
		}
	} else {
		f.seed = time.Now().UnixNano() % 1_000_000
	}
	if f.hold == 0 {
		f.hold = f.ttl / 2
	}
	if f.faultFor == 0 {
		f.faultFor = max(3*time.Second, 2*f.ttl)
	}
	var given []string
	fs.Visit(func(fl *flag.Flag) { given = append(given, fl.Name) })
	switch {
	case len(extra) > 0:
		return f, nil, usage("--issuer takes no scenario (%q)", extra[0])
	case f.target != "" && f.recvSQL != "":
		return f, nil, usage("give --target URL or --sql FILE, one receiver, not both")
	case (f.target != "" || f.recvSQL != "") && (probe.CheckConcurrentPolicy(lab.Policy(f.policy)) != nil ||
		!lab.Policy(f.policy).ChecksToken() || lab.Policy(f.policy).Registers()):
		return f, nil, usage("--policy %q: a receiver beside the issuer is judged as fenced, fenced-strict or fenced-idempotent", f.policy)
	case f.recvSQL != "" && f.db == "":
		return f, nil, usage("--sql needs --db URL, the receiver's database")
	case f.issuerDB != "" && (f.sqlFile == "" || f.recvSQL == ""):
		return f, nil, usage("--issuer-db goes with --issuer-sql and --sql, when the issuer's database is not the receiver's")
	case f.url != "" && f.sqlFile != "":
		return f, nil, usage("give --issuer URL or --issuer-sql FILE --db URL, not both")
	case f.sqlFile != "" && f.db == "" && f.start == "":
		return f, nil, usage("--issuer-sql needs --db URL: postgres://…, mysql://user:pass@host:port/db or a " +
			"SQLite file (or --start local, a PostgreSQL of the probe's)")
	case f.sqlFile != "" && f.db != "" && f.start != "":
		return f, nil, usage("give --db URL or --start local (a PostgreSQL the probe starts), not both")
	case f.url != "" && f.db != "" && f.recvSQL == "":
		return f, nil, usage("--db goes with --issuer-sql (or --sql)")
	case f.workers < 1 || f.workers > 16:
		return f, nil, usage("--workers %d: use 1 to 16", f.workers)
	case f.ttl < time.Second:
		return f, nil, usage("--ttl %s: use at least 1s", f.ttl)
	case f.duration <= 0 || f.timeout <= 0 || f.interval <= 0 || f.hold <= 0:
		return f, nil, usage("--duration, --timeout, --interval and --hold must be positive")
	case f.format != "table" && f.format != "markdown" && f.format != "json":
		return f, nil, usage("unknown format %q: use table, markdown or json", f.format)
	case f.config != "" && f.start == "":
		return f, nil, usage("--config goes with --start local: the probe starts the issuer from it")
	case f.retries < 0:
		return f, nil, usage("--retries must not be negative")
	}
	return f, given, nil
}

// runIssuerProbe tests a token issuer: workers take the lock in turn
// while faults happen, and the checker judges the recorded history.
func runIssuerProbe(args []string, stdout, stderr io.Writer) error {
	f, _, err := parseIssuerFlags(args)
	if err != nil {
		return err
	}
	usage := func(format string, a ...any) error { return &usageError{"probe: " + fmt.Sprintf(format, a...)} }
	cfg := live.Config{TTL: f.ttl, Hold: f.hold, Timeout: f.timeout, Isolation: f.isolation, Retries: f.retries}
	if f.url != "" {
		if cfg, err = live.ParseIssuer(f.url); err != nil {
			return usage("%v", err)
		}
		cfg.TTL, cfg.Hold, cfg.Timeout = f.ttl, f.hold, f.timeout
	} else {
		file, err := readIssuerSQL(f.sqlFile)
		if err != nil {
			return err
		}
		if _, _, err := sqlprobe.DSN(f.db); err != nil && f.start == "" {
			return usage("%v", err)
		}
		db := f.db
		if f.issuerDB != "" {
			db = f.issuerDB
		}
		cfg.Kind, cfg.SQLName, cfg.SQLText, cfg.DB, cfg.Lock = "sql", file.Name, file.Text, db, f.lock
	}
	if f.target != "" || f.recvSQL != "" {
		rc := &live.Receiver{Target: f.target, DB: f.db, Policy: f.policy}
		if f.recvSQL != "" {
			engine, _, err := sqlprobe.DSN(f.db)
			if err != nil {
				return &usageError{"probe: " + err.Error()}
			}
			file, err := readSQLFile(f.recvSQL, sqlprobe.Config{Engine: engine, Policy: lab.Policy(f.policy)})
			if err != nil {
				return err
			}
			rc.SQLName, rc.SQLText = file.Name, file.Text
		}
		cfg.Receiver = rc
	}
	// the faults
	startN := 0
	if f.start != "" {
		n, ok := strings.CutPrefix(f.start, "local")
		n = strings.TrimPrefix(n, "=")
		switch {
		case !ok:
			return usage("--start %q: use local or local=N", f.start)
		case n != "":
			if startN, err = strconv.Atoi(n); err != nil || startN < 1 || startN > 7 {
				return usage("--start %q: N is 1 to 7 members", f.start)
			}
		}
		if startN == 0 {
			startN = live.DefaultMembers[cfg.Kind]
		}
	}
	applies := []string{"pause-holder"}
	if f.start != "" {
		applies = live.Faults(cfg.Kind, startN)
	}
	var nemeses []string
	if f.nemesis != "" {
		for _, n := range strings.Split(f.nemesis, ",") {
			n = strings.TrimSpace(n)
			switch {
			case !issuer.IsFault(n):
				return usage("--nemesis: unknown fault %q; the faults are %s", n, strings.Join(issuer.Faults, ", "))
			case f.start == "" && n != "pause-holder":
				return usage("--nemesis %s: a fault into an issuer the probe did not start; only pause-holder applies (start it with --start local)", n)
			case !slices.Contains(applies, n):
				return usage("--nemesis %s does not apply here: %s", n, strings.Join(applies, ", "))
			}
			nemeses = append(nemeses, n)
		}
	} else if f.start != "" {
		nemeses = applies
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	run := issuer.Run{Kind: cfg.Kind, Lock: cfg.Lock, StartedByProbe: f.start != "", Workers: f.workers,
		TTLAsked: f.ttl.Seconds(), Duration: f.duration.Seconds()}
	opt := live.Options{Workers: f.workers, Duration: f.duration, Interval: f.interval, FaultFor: f.faultFor,
		Nemesis: nemeses, Seed: f.seed, Log: stderr}
	if f.start != "" {
		c, overrides, err := live.Start(ctx, live.StartOptions{Kind: cfg.Kind, N: startN, Config: f.config, Timeout: f.timeout, Log: stderr})
		if err != nil {
			return &exitError{2, err}
		}
		defer c.Stop()
		for _, o := range overrides {
			if f.format != "table" {
				fmt.Fprintf(stderr, "override: %s\n", o)
			}
			run.Notes = append(run.Notes, "override: "+o)
		}
		cfg.Endpoints = c.Endpoints()
		if cfg.Kind == "sql" {
			cfg.DB = live.PostgresURL(cfg.Endpoints[0])
		}
		opt.Cluster = c
		run.Version = c.Version()
	}
	for _, n := range nemeses {
		if n != "pause-holder" {
			run.Nemeses = append(run.Nemeses, n)
		}
	}
	run.Issuer = cfg.String()
	if f.start == "" {
		fmt.Fprintln(stderr, "faults injected into the issuer: none (not started by the probe)")
	}
	if len(nemeses) > 0 {
		fmt.Fprintf(stderr, "faults: %s, every %s for %s (seed %d)\n", strings.Join(nemeses, ", "), f.interval, f.faultFor, f.seed)
	}
	version, ttl, err := live.ProbeIssuer(ctx, &cfg)
	if err != nil {
		var fe *sqlprobe.FileError
		if errors.As(err, &fe) {
			return err
		}
		return &exitError{2, fmt.Errorf("the issuer %s is unreachable: %w", cfg.String(), err)}
	}
	if run.Version == "" {
		run.Version = version
	}
	run.TTL = ttl.Seconds()
	if ttl > 0 && cfg.Kind != "redis" && cfg.Kind != "sql" {
		cfg.TTL = ttl
	}
	if cfg.Receiver != nil {
		if err := resetReceiver(ctx, cfg.Receiver, f.timeout); err != nil {
			return &exitError{2, fmt.Errorf("the receiver: %w", err)}
		}
	}
	res, err := live.Run(ctx, cfg, opt)
	if err != nil {
		return err
	}
	run.StartUnix = float64(res.Start.UnixNano()) / 1e9
	run.End = res.End
	if f.history != "" {
		if err := writeFile(f.history, func(w io.Writer) error { return issuer.WriteHistory(w, res.History) }); err != nil {
			return err
		}
	}
	rep, err := issuer.Check(run, res.History)
	if errors.Is(err, issuer.ErrNothingToJudge) {
		return &exitError{2, err}
	}
	if err != nil {
		return err
	}
	if cfg.Receiver != nil {
		if words := judgeReceiver(ctx, cfg.Receiver, f.timeout, res.History); words != "" {
			rep.Receiver(words)
		}
	}
	if err := writeReport(stdout, f.format, rep, issuer.WriteMarkdown, issuer.WriteText); err != nil {
		return err
	}
	if f.out != "" || f.save != "" {
		if err := saveIssuerRun(ctx, rep, f, stdout, stderr); err != nil {
			return err
		}
	}
	if rep.Verdict == issuer.Broken {
		return disagreeError{}
	}
	return nil
}

func readIssuerSQL(name string) (*sqlprobe.File, error) {
	in, err := os.Open(name)
	if err != nil {
		return nil, &usageError{"probe: --issuer-sql: " + err.Error()}
	}
	defer in.Close()
	return sqlprobe.ParseIssuer(name, in)
}

func writeFile(name string, fn func(io.Writer) error) error {
	out, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := fn(out); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// saveIssuerRun writes the run as a scenario (-o) and saves it at a
// fencelab server (--save), the report's rows as the saved probe's notes.
func saveIssuerRun(ctx context.Context, rep *issuer.Report, f issuerFlags, stdout, stderr io.Writer) error {
	sc, err := rep.Scenario()
	if err != nil {
		return err
	}
	if f.out != "" {
		if err := writeFile(f.out, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(sc)
		}); err != nil {
			return err
		}
	}
	if f.save == "" {
		return nil
	}
	verdict := probe.Agree
	if rep.Verdict == issuer.Broken {
		verdict = probe.Disagree
	}
	res := &probe.Result{Target: rep.Issuer, Scenario: sc.Title, Policy: lab.Policy("fenced"), Remember: string(lab.Durable),
		Mode: probe.IssuerMode, Overrides: rep.Figures(), Verdict: verdict, Divergence: rep.Line()}
	if f.sqlFile != "" {
		engine, _, _ := sqlprobe.DSN(f.db)
		text, _ := os.ReadFile(f.sqlFile)
		res.SQL = &probe.SQLFile{Name: f.sqlFile, Engine: string(engine), Isolation: strings.ToLower(f.isolation), Text: string(text)}
	}
	link, err := probe.Save(ctx, f.save, sc, res)
	if err != nil {
		return err
	}
	fmt.Fprintf(linkOut(f.format, stdout, stderr), "saved: %s\n", link)
	return nil
}

// resetReceiver empties the receiver before the workers write to it.
func resetReceiver(ctx context.Context, rc *live.Receiver, timeout time.Duration) error {
	rcv, done, err := live.OpenReceiver(ctx, rc, timeout, 1)
	if err != nil {
		return err
	}
	defer done()
	c, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return rcv.Reset(c)
}

// judgeReceiver reads what the resource holds at the end and checks the
// writes with the receiver probe's own checker: rule 4.
func judgeReceiver(ctx context.Context, rc *live.Receiver, timeout time.Duration, history []issuer.Op) string {
	var final *probe.Holding
	if rcv, done, err := live.OpenReceiver(ctx, rc, timeout, 1); err == nil {
		c, cancel := context.WithTimeout(ctx, timeout)
		if h, err := rcv.Resource(c, live.Resource); err == nil {
			final = &h
		}
		cancel()
		done()
	}
	return live.CheckReceiver(history, lab.Policy(rc.Policy), final)
}
