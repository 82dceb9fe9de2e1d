package server

import (
	"encoding/json"
	"fmt"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/lab/logs"
	"fencelab/lab/probe"
	"fencelab/server/store"
	"fencelab/views"
	"fencelab/views/diagram"
)

// Each page is built by one function from one reading of its query
// (pageQuery) and one replay, or one decoding of a saved run: it returns
// the views' data, and the views only format it. newReport is the one
// place the pages' facts about a trace are asked of the engine.

// savedRun is a saved run as its pages read it, decoded once a request:
// the scenario and the trace as stored (never replayed again) and what a
// probe or an import observed.
type savedRun struct {
	Run      store.Run
	Scenario *lab.Scenario
	Trace    *lab.Trace
	Probe    *probe.Result // what a probe saw the receiver do, for a run it saved
	Imported *logs.Saved   // what the logs say, for a saved import
}

// loadSaved loads and decodes the run of the route's :id. The routes of
// one run sit behind shown, which has asked whether it was taken down.
func (s *Server) loadSaved(c echo.Context) (*savedRun, error) {
	run, err := s.storedRun(c.Request().Context(), c.Param("id"))
	if err != nil {
		return nil, err
	}
	return decodeSaved(run)
}

// decodeSaved decodes run's scenario, trace and observation.
func decodeSaved(run store.Run) (*savedRun, error) {
	sc, tr, err := decodeRun(run)
	if err != nil {
		return nil, err
	}
	sr := &savedRun{Run: run, Scenario: sc, Trace: tr, Imported: importedOf(run)}
	if run.Observed != nil && sr.Imported == nil {
		sr.Probe = new(probe.Result)
		if err := json.Unmarshal(run.Observed, sr.Probe); err != nil {
			return nil, fmt.Errorf("decode observation of run %s: %w", run.ID, err)
		}
	}
	return sr, nil
}

// kind is what an embed calls the run: a saved import, or a saved run.
func (sr *savedRun) kind() string {
	if sr.Imported != nil {
		return "saved import"
	}
	return "saved run"
}

// newReport is the report of tr under ps, with the facts the pages show
// beside the steps.
func newReport(sc *lab.Scenario, tr *lab.Trace, ps []lab.Policy) *views.Report {
	f := views.Facts{Resources: lab.ResourceNames(sc, tr), Fresh: make(map[lab.Policy]map[int]lab.Freshness, len(ps))}
	for _, p := range ps {
		f.Fresh[p] = lab.RMWFreshness(tr, p)
	}
	return views.NewReport(sc, tr, ps, f)
}

// report is sr's report under ps, with a saved import's logs beside it.
func (sr *savedRun) report(ps []lab.Policy) *views.Report {
	r := newReport(sr.Scenario, sr.Trace, ps)
	if sr.Imported != nil {
		r.Imported, r.Logs = importedPicture(sr.Imported), importedLesson(sr.Imported)
	}
	return r
}

// cardAlt is the alt text of the card of the page c asks for.
func (s *Server) cardAlt(c echo.Context, sc *lab.Scenario, tr *lab.Trace) string {
	a, b := s.query(c).pair(tr)
	return diagram.CompareAlt(sc, tr, a, b)
}
