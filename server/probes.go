package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/lab/probe"
	"fencelab/server/store"
	"fencelab/views"
	"fencelab/views/paths"
)

// probeSaveJSON is the body of POST /api/probes: the scenario exactly as
// the probe played it (overrides applied, or the ordering that disagreed)
// and what the probe saw. The server never contacts the receiver: the
// target is only a name shown on the page.
type probeSaveJSON struct {
	Scenario json.RawMessage `json:"scenario"`
	Probe    json.RawMessage `json:"probe"`
}

// handleAPISaveProbe saves a probe's observation as a run with an observed
// column; like any run it never changes.
func (s *Server) handleAPISaveProbe(c echo.Context) error {
	sc, res, err := parseProbeBody(c.Request().Body)
	if err != nil {
		return err
	}
	run, err := s.saveProbe(c, sc, res)
	if err != nil {
		return err
	}
	link := s.absURL(c, paths.RunPath(run.ID))
	c.Response().Header().Set(echo.HeaderLocation, link)
	return writeJSON(c, http.StatusCreated, savedJSON{ID: run.ID, URL: link})
}

func parseProbeBody(r io.Reader) (*lab.Scenario, *probe.Result, error) {
	body, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, fmt.Errorf("read body: %w", err)
	}
	var in probeSaveJSON
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil || in.Scenario == nil || in.Probe == nil {
		return nil, nil, echo.NewHTTPError(http.StatusBadRequest, `The body must be {"scenario": {...}, `+
			`"probe": {...}}, as fencelab probe --save sends it.`)
	}
	sc, err := lab.Parse(bytes.NewReader(in.Scenario))
	if err != nil {
		return nil, nil, err
	}
	var res probe.Result
	dec = json.NewDecoder(bytes.NewReader(in.Probe))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		return nil, nil, echo.NewHTTPError(http.StatusBadRequest, "probe: "+err.Error())
	}
	if err := probe.CheckObserved(lab.Replay(sc), &res); err != nil {
		return nil, nil, echo.NewHTTPError(http.StatusUnprocessableEntity, "probe: "+err.Error())
	}
	return sc, &res, nil
}

// saveProbe stores the scenario, its trace and the observation; the id
// covers the observation too, so two probes of one scenario get two links.
func (s *Server) saveProbe(c echo.Context, sc *lab.Scenario, res *probe.Result) (store.Run, error) {
	canonical, err := json.Marshal(sc)
	if err != nil {
		return store.Run{}, fmt.Errorf("encode scenario: %w", err)
	}
	trace, err := json.Marshal(lab.Replay(sc))
	if err != nil {
		return store.Run{}, fmt.Errorf("encode trace: %w", err)
	}
	observed, err := json.Marshal(res)
	if err != nil {
		return store.Run{}, fmt.Errorf("encode observation: %w", err)
	}
	id := s.runID(append(append(canonical, '\n'), observed...))
	return s.keep(
		c,
		store.Run{ID: id, Title: sc.Title, Scenario: canonical, Trace: trace, Observed: observed, EngineVersion: lab.Version},
		nil,
	)
}

// observedView turns a stored observation into the page's rows: every
// step of the trace, with expected and observed where the receiver took
// part. Nil for a run of the model alone.
func observedView(sr *savedRun) *views.Observed {
	res, tr := sr.Probe, sr.Trace
	if res == nil {
		return nil
	}
	v := &views.Observed{Target: res.Target, Policy: res.Policy, Remember: res.Remember, Mode: res.Mode,
		Verdict: res.Verdict, Divergence: res.Divergence, Overrides: res.Overrides}
	if q := res.SQL; q != nil {
		v.SQL = &views.ObservedSQL{Name: q.Name, Engine: q.Engine, Isolation: q.Isolation,
			Lines: strings.Split(strings.TrimRight(q.Text, "\n"), "\n"), Roles: q.Roles, Params: q.Params, Columns: q.Columns}
		for _, qq := range q.Queries {
			v.SQL.Queries = append(v.SQL.Queries, views.ObservedQuery{Name: qq.Name, Line: qq.Line,
				Roles: strings.Join(qq.Roles, ", "), Placeholders: strings.Join(qq.Placeholders, " ")})
		}
	}
	if o := res.Orderings; o != nil {
		v.Orderings = fmt.Sprintf("%s orderings requested; %d played, %d disagree. This is "+
			"the first that disagreed.", o.Requested, o.Tried, o.Disagreed)
	}
	byStep := map[int]probe.Step{}
	for _, st := range res.Steps {
		byStep[st.Index] = st
	}
	first := true
	for _, st := range tr.Steps {
		row := views.ObservedRow{Index: st.Index, Actor: st.Event.Actor, Event: lab.DescribeEvent(st.Event)}
		if ob, ok := byStep[st.Index]; ok {
			row.Request, row.Agree, row.Error = ob.Request, ob.Agree, ob.Error
			row.Expected, row.Observed = probe.ObservationText(ob.Expected), probe.ObservationText(ob.Observed)
			row.First = !ob.Agree && first
			first = first && ob.Agree
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

// observedMarkdown adds, for a run a probe saved, what the receiver did:
// the probe's own Markdown, every step with its event; for a saved import,
// what the logs say.
func observedMarkdown(w io.Writer, sr *savedRun) error {
	if sr.Imported != nil {
		return importedMarkdown(w, sr.Imported, sr.Trace)
	}
	if sr.Probe == nil {
		return nil
	}
	res, tr := *sr.Probe, sr.Trace
	byStep := map[int]probe.Step{}
	for _, st := range res.Steps {
		byStep[st.Index] = st
	}
	res.Steps, res.Orderings = nil, nil
	for _, st := range tr.Steps {
		row, ok := byStep[st.Index]
		if !ok {
			row = probe.Step{Index: st.Index, Agree: true}
		}
		row.Event = st.Event
		res.Steps = append(res.Steps, row)
	}
	io.WriteString(w, "\n")
	return probe.WriteMarkdown(w, &res)
}
