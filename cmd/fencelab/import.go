package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"fencelab/lab"
	"fencelab/lab/logs"
)

// importFlags are the options of `fencelab import`.
type importFlags struct {
	files        []string
	mapping      string
	format       logs.Format
	since, until time.Time
	skew         time.Duration
	explore      bool
	policy       lab.Policy
	json, strict bool
	out          string
	budget       int
	deadline     time.Duration
	suggest      bool
	save         string
}

// importLogs turns an incident's log files into a scenario and says how
// the resource behaved against each policy and what the logs leave out.
func importLogs(args []string, stdout, stderr io.Writer) error {
	f, err := parseImportFlags(args)
	if err != nil {
		return err
	}
	if f.suggest {
		return suggestMapping(f, stdout)
	}
	m, err := readMapping(f.mapping)
	if err != nil {
		return err
	}
	im := logs.New(m, logs.Options{Format: f.format, Since: f.since, Until: f.until, Strict: f.strict,
		Skew: f.skew, Explore: f.explore, Budget: f.budget})
	for _, name := range f.files {
		if err := addFile(im, name); err != nil {
			return err
		}
	}
	ctx, stop := interruptible(f.deadline)
	defer stop()
	res, err := im.Finish(ctx)
	var ie *logs.Error
	if errors.As(err, &ie) {
		for _, r := range ie.Reasons {
			fmt.Fprintf(stderr, "import: %s\n", r)
		}
		return invalidError{}
	}
	if err != nil {
		return err
	}
	return reportImport(res, f, stdout, stderr)
}

func addFile(im *logs.Importer, name string) error {
	file, err := os.Open(name)
	if err != nil {
		return err
	}
	defer file.Close()
	return im.Add(name, file)
}

func readMapping(name string) (*logs.Mapping, error) {
	file, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	m, err := logs.ReadMapping(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

func parseImportFlags(args []string) (importFlags, error) {
	var f importFlags
	usage := func(format string, a ...any) error { return &usageError{"import: " + fmt.Sprintf(format, a...)} }
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var format, since, until, skew, policy string
	fs.StringVar(&f.mapping, "map", "", "the mapping file")
	fs.StringVar(&format, "format", "", "jsonl, logfmt or csv (default: detected)")
	fs.StringVar(&since, "since", "", "keep events from this time on")
	fs.StringVar(&until, "until", "", "keep events up to this time")
	fs.StringVar(&skew, "skew", "", "how far apart the hosts' clocks may be, as 50ms")
	fs.StringVar(&policy, "policy", "", "show this policy only")
	fs.BoolVar(&f.json, "json", false, "print the result as JSON")
	fs.BoolVar(&f.strict, "strict", false, "refuse any malformed line")
	fs.StringVar(&f.out, "o", "", "also write the scenario file here")
	fs.IntVar(&f.budget, "budget", lab.DefaultBudget, "the most distinct states to explore")
	fs.DurationVar(&f.deadline, "deadline", 0, "stop exploring after this long (0: no deadline)")
	fs.BoolVar(&f.suggest, "suggest", false, "print a starting mapping from the files alone")
	fs.StringVar(&f.save, "save", "", "save the import at the fencelab server at this URL and print its link")
	files, err := parseArgs(fs, args)
	if err != nil {
		return f, usage("%v", err)
	}
	f.files = files
	if f.format, err = logs.ParseFormat(format); err != nil {
		return f, usage("%v", err)
	}
	for _, t := range []struct {
		flag, v string
		to      *time.Time
	}{{"since", since, &f.since}, {"until", until, &f.until}} {
		if t.v == "" {
			continue
		}
		if *t.to, err = logs.ParseTime(t.v); err != nil {
			return f, usage("--%s: %v", t.flag, err)
		}
	}
	if skew != "" {
		if f.skew, err = time.ParseDuration(skew); err != nil || f.skew < 0 {
			return f, usage("--skew %q: give a duration such as 50ms", skew)
		}
		f.explore = true
	}
	f.policy = lab.Policy(policy)
	switch {
	case policy != "" && !slices.Contains(lab.Policies(), f.policy):
		return f, usage("--policy %q is not a policy", policy)
	case len(files) == 0:
		return f, usage("give one log file or several, one per host")
	case f.mapping == "" && !f.suggest:
		return f, usage("give the mapping with --map FILE (fencelab import --suggest FILE… prints a first one)")
	case f.budget < 1:
		return f, usage("--budget must be at least 1")
	}
	return f, nil
}

// reportImport prints the result, and the malformed lines on stderr.
func reportImport(res *logs.Result, f importFlags, stdout, stderr io.Writer) error {
	for _, p := range res.Problems {
		if p.Source == "mapping" {
			fmt.Fprintf(stderr, "import: %s\n", p.Message)
			continue
		}
		fmt.Fprintf(stderr, "import: %s (left out)\n", p)
	}
	if n := res.ProblemCount - len(res.Problems); n > 0 {
		fmt.Fprintf(stderr, "import: and %d more malformed lines\n", n)
	}
	if f.policy != "" {
		res.Against = slices.DeleteFunc(res.Against, func(v logs.Verdict) bool { return v.Policy != f.policy })
	}
	if f.out != "" {
		b, _ := json.MarshalIndent(res.Scenario, "", "  ")
		if err := os.WriteFile(f.out, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	if f.save != "" {
		link, err := postImport(context.Background(), f.save, res, f.files)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "saved: %s\n", link)
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	printImport(res, f.policy, stdout)
	return nil
}

// suggestMapping prints a mapping to start from, from the files alone.
func suggestMapping(f importFlags, stdout io.Writer) error {
	s := logs.NewSurvey()
	for _, name := range f.files {
		file, err := os.Open(name)
		if err != nil {
			return err
		}
		s.Add(name, file, f.format)
		file.Close()
	}
	for _, b := range s.Binary {
		return fmt.Errorf("%s", b)
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if f.json {
		return enc.Encode(map[string]any{"mapping": s.SuggestMapping(), "files": s.Files})
	}
	return enc.Encode(s.SuggestMapping())
}

// printImport prints the result in words.
func printImport(res *logs.Result, only lab.Policy, w io.Writer) {
	fmt.Fprintf(w, "%s\n%d lines read, %d events, %d lines not events, %d malformed\n\n",
		res.Scenario.Title, res.Lines, len(res.Scenario.Events), res.NonEvents, res.ProblemCount)
	marks := map[int]string{}
	for _, m := range res.Marks {
		if strings.HasPrefix(m.Reason, m.Mark+": ") { // the engine's reasons name their decision
			marks[m.Step] = "  " + m.Reason
		} else {
			marks[m.Step] = fmt.Sprintf("  %s: %s", m.Mark, m.Reason)
		}
	}
	inferred := map[int]bool{}
	for _, e := range res.Inferred {
		inferred[e.Step] = true
	}
	for i, st := range res.Trace.Steps {
		src := res.Sources[i]
		switch {
		case inferred[i+1]:
			src = "inferred (" + src + ")"
		case strings.HasPrefix(st.Event.Note, "computed: "):
			src = "computed (" + src + ")"
		}
		fmt.Fprintf(w, "%3d  %-10s %-52s %s%s\n", i+1, st.Event.Actor, lab.DescribeEvent(st.Event), src, marks[i+1])
	}
	fmt.Fprintln(w, "\nObserved against the model:")
	for _, v := range res.Against {
		mark := "agrees   "
		if !v.Agrees {
			mark = "disagrees"
		}
		fmt.Fprintf(w, "  %-17s %s  %s\n", v.Policy, mark, v.Words)
	}
	if len(res.Clocks.Offsets) > 0 || res.Clocks.Contradiction != nil {
		fmt.Fprintln(w, "\nClocks:")
		for _, o := range res.Clocks.Offsets {
			fmt.Fprintf(w, "  %s %+gms: %s\n", o.Host, o.OffsetMS, o.Words)
		}
		if c := res.Clocks.Contradiction; c != nil {
			fmt.Fprintf(w, "  contradiction (%s): %s\n", strings.Join(c.Sources, ", "), c.Words)
		}
	}
	fmt.Fprintf(w, "\nGaps (%d):\n", len(res.Gaps))
	for _, g := range res.Gaps {
		fmt.Fprintf(w, "  %s  %s: %s\n", strings.Join(g.Sources, ", "), g.Kind, g.Words)
	}
	for _, r := range res.Legend {
		fmt.Fprintf(w, "  legend: %s %s is %q\n", r.Field, r.Name, r.Original)
	}
	if x := res.Orderings; x != nil {
		printOrderings(x, only, w)
	}
}

// printOrderings says what the exploration of the orderings the clocks
// allow found, and no more: a stopped one counted only the orderings it
// followed to their end (usually none), and its worst class is the worst
// met in the steps it took.
func printOrderings(x *lab.Exploration, only lab.Policy, w io.Writer) {
	worstWord := "worst"
	switch {
	case x.Complete:
		fmt.Fprintf(w, "\nOrderings the clocks allow: %s, all of them explored\n", x.Orderings)
	case x.Orderings.Sign() == 0:
		worstWord = "worst met"
		fmt.Fprintf(w, "\nOrderings the clocks allow: not all explored, stopped early (%s) before any was followed to its end: "+
			"none is counted, and the worst is the worst met in the steps taken\n", x.Stopped)
	default:
		worstWord = "worst met"
		fmt.Fprintf(w, "\nOrderings the clocks allow: not all explored, stopped early (%s): the counts cover the %s followed to their end\n",
			x.Stopped, x.Orderings)
	}
	for _, pe := range x.Policies {
		if only != "" && pe.Policy != only {
			continue
		}
		worst := "none"
		if pe.Worst != nil {
			worst = string(*pe.Worst)
		}
		if x.Orderings.Sign() == 0 { // no count to give
			if pe.Worst == nil {
				worst = "none: no violation in the steps taken"
			}
			fmt.Fprintf(w, "  %-17s %s %s\n", pe.Policy, worstWord, worst)
			continue
		}
		counts := make([]string, 0, len(pe.ByClass))
		for _, c := range lab.Classes() {
			counts = append(counts, fmt.Sprintf("%s %s", c, pe.ByClass[c]))
		}
		fmt.Fprintf(w, "  %-17s %s %-10s %s\n", pe.Policy, worstWord, worst, strings.Join(counts, ", "))
	}
}
