package server

import (
	"bytes"
	"context"

	"fencelab/lab"
	"fencelab/views/paths"
)

// origin is what a from= names: a built-in ("paused-worker") or a saved
// run ("r/ID"), with its scenario parsed by today's engine.
type origin struct {
	scenario *lab.Scenario
	runID    string // the saved run's id; "" for a built-in
}

// resolveFrom is the one reader of from=, for the editor, the explorer
// and the comparison: the built-in named from, or the saved run it names.
// An empty from names nothing (errNoFrom); the editor opens a blank draft
// before it asks.
func (s *Server) resolveFrom(ctx context.Context, from string) (origin, error) {
	if from == "" {
		return origin{}, errNoFrom
	}
	id, isRun := paths.CutRunFrom(from)
	if !isRun {
		b, ok := s.library.Get(from)
		if !ok {
			return origin{}, errNoScenario
		}
		return origin{scenario: b.Scenario}, nil
	}
	run, err := s.runByID(ctx, id)
	if err != nil {
		return origin{}, err
	}
	sc, err := lab.Parse(bytes.NewReader(run.Scenario))
	if err != nil {
		return origin{}, &withSource{err: err, source: string(run.Scenario)}
	}
	return origin{scenario: sc, runID: id}, nil
}
