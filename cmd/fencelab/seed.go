package main

import (
	"fmt"
	"io"

	"fencelab/lab"
	"fencelab/scenarios"
)

// seed prints the four lines of the spec's seed, each computed by the
// engine from a built-in scenario.
func seed(lib *lab.Library, w io.Writer) error {
	pw, err := builtinTrace(lib, "paused-worker")
	if err != nil {
		return err
	}
	rct, err := builtinTrace(lib, "repeated-current-token")
	if err != nil {
		return err
	}
	otf, err := builtinTrace(lib, "old-token-first")
	if err != nil {
		return err
	}
	last := rct.Steps[len(rct.Steps)-1].Outcomes.Of(lab.Fenced).Decision
	aWrite, err := firstWriteBy(otf, "A")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "unfenced final value: %s\nfenced final value: %s\n"+
		"repeated current token: %s\nold token before newer token reaches resource: %s\n",
		finalValue(pw, lab.Unfenced), finalValue(pw, lab.Fenced), last, aWrite.Outcomes.Of(lab.Fenced).Decision)
	return err
}

func builtinTrace(lib *lab.Library, name string) (*lab.Trace, error) {
	b, ok := lib.Get(name)
	if !ok {
		return nil, fmt.Errorf("built-in scenario %s is missing", name)
	}
	return lab.Replay(b.Scenario), nil
}

func finalValue(t *lab.Trace, p lab.Policy) string {
	v := t.Summary[p].Final["result"]
	if v == nil {
		return "empty"
	}
	return *v
}

func firstWriteBy(t *lab.Trace, actor string) (lab.Step, error) {
	for _, st := range t.Steps {
		if st.Event.Actor == actor && st.Event.Kind == lab.Write {
			return st, nil
		}
	}
	return lab.Step{}, fmt.Errorf("old-token-first has no write by %s", actor)
}

func listScenarios(args []string, w io.Writer) error {
	if len(args) > 0 {
		return &usageError{"scenarios takes no arguments"}
	}
	lib, err := lab.LoadLibrary(scenarios.FS, scenarios.Order())
	if err != nil {
		return err
	}
	width := 0
	for _, b := range lib.List {
		width = max(width, len(b.Name))
	}
	for _, b := range lib.List {
		if _, err := fmt.Fprintf(w, "%-*s  %s\n", width, b.Name, b.Lesson); err != nil {
			return err
		}
	}
	return nil
}
