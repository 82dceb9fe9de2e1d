package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"fencelab/lab"
	"fencelab/scenarios"
	"fencelab/views/diagram"
	"fencelab/views/export"
)

// replayFlags are the options of `fencelab replay`.
type replayFlags struct {
	scenario string
	policies []lab.Policy
	format   string
	file     string
}

func replay(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	lib, err := lab.LoadLibrary(scenarios.FS, scenarios.Order())
	if err != nil {
		return err
	}
	if len(args) == 0 {
		return seed(lib, stdout)
	}
	f, err := parseReplayFlags(args, piped(stdin))
	if err != nil {
		return err
	}
	s, err := loadScenario("replay", f, lib, stdin)
	if err != nil {
		return reportInvalid(err, stderr)
	}
	t := lab.Replay(s)
	switch f.format {
	case "json":
		return writeJSON(stdout, t)
	case "svg":
		return diagram.SVG(stdout, s, t, f.policies[0])
	case "markdown":
		return export.Markdown(stdout, s, t, f.policies, "", "")
	}
	return writeTable(stdout, s, t, f.policies)
}

func parseReplayFlags(args []string, stdinPiped bool) (replayFlags, error) {
	var f replayFlags
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.scenario, "scenario", "", "a built-in scenario by name")
	policies := fs.String("policies", "unfenced,fenced", "comma-separated policies to show")
	asJSON := fs.Bool("json", false, "print the trace JSON")
	fs.StringVar(&f.format, "format", "table", "table, markdown, json or svg (the diagram of the first of --policies)")
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			return f, &usageError{"replay: " + err.Error()}
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if *asJSON {
		f.format = "json"
	}
	if f.format != "table" && f.format != "markdown" && f.format != "json" && f.format != "svg" {
		return f, &usageError{fmt.Sprintf("replay: unknown format %q: use table, markdown, json or svg", f.format)}
	}
	switch {
	case len(files) > 1:
		return f, &usageError{"replay: give one scenario file"}
	case len(files) == 1 && f.scenario != "":
		return f, &usageError{"replay: give a file or --scenario, not both"}
	case len(files) == 0 && f.scenario == "" && stdinPiped:
		f.file = "-"
	case len(files) == 0 && f.scenario == "":
		return f, &usageError{"replay: give a scenario file, - for stdin, or --scenario NAME"}
	case len(files) == 1:
		f.file = files[0]
	}
	var err error
	f.policies, err = parsePolicies(*policies)
	return f, err
}

func parsePolicies(list string) ([]lab.Policy, error) {
	var out []lab.Policy
	for _, name := range strings.Split(list, ",") {
		p := lab.Policy(strings.TrimSpace(name))
		if lab.PolicyIndex(p) < 0 {
			return nil, &usageError{fmt.Sprintf("replay: unknown policy %q: use %s", p, policyNames())}
		}
		out = append(out, p)
	}
	return out, nil
}

func policyNames() string {
	names := make([]string, len(lab.Policies()))
	for i, p := range lab.Policies() {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}

// loadScenario reads the scenario f names; cmd names the subcommand in errors.
func loadScenario(cmd string, f replayFlags, lib *lab.Library, stdin io.Reader) (*lab.Scenario, error) {
	if f.scenario != "" {
		b, ok := lib.Get(f.scenario)
		if !ok {
			return nil, &usageError{fmt.Sprintf("%s: no built-in scenario %q (see fencelab scenarios)", cmd, f.scenario)}
		}
		return b.Scenario, nil
	}
	r := stdin
	if f.file != "-" {
		file, err := os.Open(f.file)
		if err != nil {
			return nil, &usageError{cmd + ": " + err.Error()}
		}
		defer file.Close()
		r = file
	}
	return lab.Parse(r)
}

// piped reports whether stdin is a pipe or a file rather than a terminal
// (or /dev/null): `fencelab replay --json < s.json` then reads it as "-".
func piped(stdin io.Reader) bool {
	f, ok := stdin.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice == 0
}

// reportInvalid prints every validation error on its own line; other
// errors go up unchanged.
func reportInvalid(err error, stderr io.Writer) error {
	var ve *lab.ValidationError
	var se *lab.SyntaxError
	switch {
	case errors.As(err, &ve):
		for _, fe := range ve.Errors {
			fmt.Fprintf(stderr, "invalid scenario: %s\n", fe)
		}
		return invalidError{}
	case errors.As(err, &se):
		fmt.Fprintf(stderr, "invalid scenario: %v\n", se)
		return invalidError{}
	}
	return err
}

func writeJSON(w io.Writer, v any) error {
	if t, ok := v.(*lab.Trace); ok {
		_, err := w.Write(append(t.AppendJSON(nil), '\n'))
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
