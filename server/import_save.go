package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/lab/logs"
	"fencelab/server/store"
	"fencelab/views/export"
	"fencelab/views/paths"
)

// importSaveJSON is the body of POST /api/imports, as fencelab import
// --save sends it: the scenario and what the import keeps beside it.
type importSaveJSON struct {
	Scenario json.RawMessage `json:"scenario"`
	Import   json.RawMessage `json:"import"`
}

// handleAPISaveImport saves an import made by fencelab import: the
// scenario, checked as any other, and what the logs say the resource did,
// checked against the scenario's replay. It answers as /api/probes does.
// Its body, up to 4 MiB, is read in an import's turn, as the page's.
func (s *Server) handleAPISaveImport(c echo.Context) error {
	return s.importTurn(s.saveAPIImport)(c)
}

func (s *Server) saveAPIImport(c echo.Context) error {
	sc, saved, err := parseImportBody(c.Request().Body, c.Request().ContentLength)
	if err != nil {
		return err
	}
	if saved.Orderings != nil {
		// The page shows the orderings as the lab's finding, so the lab
		// explores them itself, in the order the import gives, as the
		// import page does: a client's counts are not taken on trust.
		ctx, cancel := context.WithTimeout(c.Request().Context(), importDeadline)
		saved.Orderings = lab.Explore(ctx, sc, lab.ExploreOptions{Budget: importBudget, After: saved.After})
		cancel()
	}
	run, err := s.saveImported(c, sc, lab.Replay(sc), saved)
	if err != nil {
		return err
	}
	link := s.absURL(c, paths.RunPath(run.ID))
	c.Response().Header().Set(echo.HeaderLocation, link)
	return writeJSON(c, http.StatusCreated, savedJSON{ID: run.ID, URL: link})
}

// parseImportBody reads and checks a saved import of n bytes (-1 when
// the request does not say). A body of known length is read into a buffer
// of its size, where io.ReadAll's doubling allocated about three times it.
func parseImportBody(r io.Reader, n int64) (*lab.Scenario, *logs.Saved, error) {
	var buf bytes.Buffer
	if n > 0 && n <= maxImportBody { // limitBody refused more
		buf.Grow(int(n) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, nil, fmt.Errorf("read body: %w", err)
	}
	body := buf.Bytes()
	var in importSaveJSON
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil || len(in.Scenario) == 0 || len(in.Import) == 0 {
		return nil, nil, echo.NewHTTPError(http.StatusBadRequest,
			`The body must be {"scenario": {...}, "import": {...}}, as fencelab import --save sends it.`)
	}
	sc, err := lab.Parse(bytes.NewReader(in.Scenario))
	if err != nil {
		return nil, nil, err
	}
	var saved logs.Saved
	dec = json.NewDecoder(bytes.NewReader(in.Import))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&saved); err != nil {
		return nil, nil, echo.NewHTTPError(http.StatusBadRequest, "import: "+err.Error())
	}
	if err := checkSaved(&saved, lab.Replay(sc)); err != nil {
		return nil, nil, echo.NewHTTPError(http.StatusUnprocessableEntity, "import: "+err.Error())
	}
	return sc, &saved, nil
}

// Limits of what a saved import may carry beside its scenario.
const (
	maxSavedFiles  = 64
	maxSavedSource = 300 // characters of one step's file:line
)

// checkSaved refuses a saved import that does not fit its scenario: the
// steps it names must be the replay's, its outcomes the three the logs
// can say, and each policy's verdict the one the replay gives, so that a
// saved page never states an agreement its trace does not bear out.
func checkSaved(sv *logs.Saved, tr *lab.Trace) error {
	n := len(tr.Steps)
	switch {
	case sv.Source != "import":
		return fmt.Errorf(`source is %q, not "import"`, sv.Source)
	case len(sv.Files) == 0 || len(sv.Files) > maxSavedFiles:
		return fmt.Errorf("files: give the names of the 1 to %d log files imported", maxSavedFiles)
	case len(sv.Sources) != n:
		return fmt.Errorf("sources: %d lines named for %d steps: give one file:line for each step", len(sv.Sources), n)
	}
	for i, src := range sv.Sources {
		if len(src) > maxSavedSource {
			return fmt.Errorf("sources[%d]: longer than %d characters", i, maxSavedSource)
		}
	}
	seen := map[int]bool{}
	for i, o := range sv.Observed {
		if o.Step < 1 || o.Step > n {
			return fmt.Errorf("observed[%d]: step %d is not a step of the scenario (1 to %d)", i, o.Step, n)
		}
		if !slices.Contains([]logs.Outcome{"applied", "rejected", "suppressed"}, o.Outcome) {
			return fmt.Errorf("observed[%d]: outcome %q is not applied, rejected or suppressed", i, o.Outcome)
		}
		if seen[o.Step] {
			return fmt.Errorf("observed[%d]: step %d observed twice", i, o.Step)
		}
		seen[o.Step] = true
	}
	for i, e := range sv.Inferred {
		if e.Step < 1 || e.Step > n {
			return fmt.Errorf("inferred[%d]: step %d is not a step of the scenario (1 to %d)", i, e.Step, n)
		}
	}
	for i, v := range sv.Against {
		pi := lab.PolicyIndex(v.Policy)
		if pi < 0 {
			return fmt.Errorf("against[%d]: %q is not a policy", i, v.Policy)
		}
		first := firstDisagreement(tr, pi, sv.Observed)
		if v.Agrees != (first == 0) {
			return fmt.Errorf("against[%d]: %s %s with the logs, but its replay %s", i, v.Policy, agreesWord(v.Agrees), disagreeWords(first))
		}
		if v.FirstDisagreement != nil && *v.FirstDisagreement != first {
			return fmt.Errorf("against[%d]: %s first disagrees at step %d, not %d", i, v.Policy, first, *v.FirstDisagreement)
		}
	}
	if sv.Orderings != nil && sv.Skew == "" {
		return fmt.Errorf("orderings without the skew they were explored with")
	}
	if sv.Orderings != nil && sv.After == nil {
		return fmt.Errorf("orderings without the order they were explored in (after): save them with a fencelab import of this version")
	}
	if sv.Orderings == nil && sv.After != nil {
		return fmt.Errorf("after without orderings")
	}
	if len(sv.After) > n {
		return fmt.Errorf("after: %d entries for %d steps", len(sv.After), n)
	}
	for i, before := range sv.After {
		if len(before) > i {
			return fmt.Errorf("after[%d]: names %s before step %d, which has %s before it",
				i, export.Plural(len(before), "step"), i+1, export.Plural(i, "step"))
		}
		for _, j := range before {
			if j < 1 || j > i {
				return fmt.Errorf("after[%d]: step %d is not a step before step %d", i, j, i+1)
			}
		}
	}
	return nil
}

// firstDisagreement is the first observation, in the import's order,
// where policy pi's decision differs from what the logs say the resource
// did, or 0.
func firstDisagreement(tr *lab.Trace, pi int, observed []logs.Observation) int {
	for _, o := range observed {
		if !logs.Agrees(o.Outcome, tr.Steps[o.Step-1].Outcomes[pi].Decision) {
			return o.Step
		}
	}
	return 0
}

func agreesWord(a bool) string {
	if a {
		return "is said to agree"
	}
	return "is said to disagree"
}

func disagreeWords(first int) string {
	if first == 0 {
		return "agrees with every observed outcome"
	}
	return fmt.Sprintf("differs at step %d", first)
}

// saveImported keeps a scenario with what its import saw, through keep:
// a client's budgets count it as any other save. The page's Save & share
// and POST /api/imports both come here, so both store the same thing.
func (s *Server) saveImported(c echo.Context, sc *lab.Scenario, tr *lab.Trace, sv *logs.Saved) (store.Run, error) {
	canonical, err := json.Marshal(sc)
	if err != nil {
		return store.Run{}, fmt.Errorf("encode scenario: %w", err)
	}
	observed, err := json.Marshal(sv)
	if err != nil {
		return store.Run{}, fmt.Errorf("encode observation: %w", err)
	}
	id := s.runID(append(append(canonical, '\n'), observed...))
	run := store.Run{ID: id, Title: sc.Title, Scenario: canonical, Trace: tr.AppendJSON(nil), Observed: observed, EngineVersion: lab.Version}
	return s.keep(c, run, nil)
}
