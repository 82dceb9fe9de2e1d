package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/lab/logs"
	"fencelab/server/store"
	"fencelab/views"
	"fencelab/views/export"
	"fencelab/views/paths"
)

// choices lists each distinct value of the kind field (and of the
// observed field) with what the mapping makes of it: the form's choice,
// else a guess from its words for a value the form has not shown yet.
func (in *importInput) choices(m logs.Flat) ([]views.ValueChoice, *views.OutcomeForm) {
	var kinds []views.ValueChoice
	for _, v := range valuesOf(in.survey, m.KindField, m.Kinds) {
		kinds = append(kinds, views.ValueChoice{Value: v, Choice: string(m.Kinds[v])})
	}
	if m.ObservedField == "" {
		return kinds, nil
	}
	out := &views.OutcomeForm{}
	for _, v := range valuesOf(in.survey, m.ObservedField, m.Outcomes) {
		out.Values = append(out.Values, views.ValueChoice{Value: v, Choice: string(m.Outcomes[v])})
	}
	return kinds, out
}

// valuesOf is the survey's values of field, then the mapped values the
// logs do not have (a loaded mapping may name more).
func valuesOf[V any](s *logs.Survey, field string, mapped map[string]V) []string {
	vals := slices.Clone(s.Values[field])
	for _, v := range lab.SortedNames(mapped) {
		if !slices.Contains(vals, v) {
			vals = append(vals, v)
		}
	}
	return vals
}

// importPageOf is the page with the posted logs, the mapping and the
// first look at the logs, before the import runs.
func importPageOf(in *importInput) views.ImportPage {
	page := views.ImportPage{Files: append(slices.Clone(in.files), views.ImportFile{}), Fields: in.survey.Fields,
		Slots: slotsOf(in.flat), Kinds: in.kinds, Outcome: in.outcome, Skew: in.skew, MaxSize: "4 MiB", Errors: in.errs,
		Suggest: suggestionView(in.survey), Loaded: in.loaded}
	if len(page.Files) > maxImportFiles {
		page.Files = page.Files[:maxImportFiles]
	}
	for i, f := range in.survey.Formats {
		if i < len(in.files) {
			page.Files[i].Format = string(f)
		}
	}
	return page
}

// runImport imports the posted logs under the mapping and fills the page.
func runImport(ctx context.Context, in *importInput) (views.ImportPage, *logs.Result) {
	page := importPageOf(in)
	if len(in.files) == 0 {
		return page, nil
	}
	res, errs := importLogs(ctx, in)
	page.Errors = append(page.Errors, errs...)
	if res != nil {
		page.Result = importResultView(res)
	}
	return page, res
}

func importLogs(ctx context.Context, in *importInput) (*logs.Result, []string) {
	if err := in.mapping.Check(); err != nil {
		return nil, append(slices.Clone(in.survey.Binary), err.Error())
	}
	opt := logs.Options{Budget: importBudget}
	if in.skew != "" {
		d, err := time.ParseDuration(in.skew)
		if err != nil || d < 0 {
			return nil, []string{fmt.Sprintf("skew %q: give a duration such as 50ms", in.skew)}
		}
		opt.Skew, opt.Explore = d, true
	}
	im := logs.New(in.mapping, opt)
	for _, f := range in.files {
		in.lines.Reset(f.Open())
		if err := im.Add(f.Name, in.lines); err != nil {
			return nil, []string{err.Error()}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, importDeadline)
	defer cancel()
	res, err := im.Finish(ctx)
	var ie *logs.Error
	if errors.As(err, &ie) {
		return nil, ie.Reasons
	}
	if err != nil {
		return nil, []string{err.Error()}
	}
	return res, nil
}

// slotsOf fills the form's slots from a mapping.
func slotsOf(m logs.Flat) []views.MapSlot {
	fields := map[string]string{"kind": m.KindField, "time": m.Time, "actor": m.Actor, "token": m.Token, "scope": m.Scope,
		"resource": m.Resource, "value": m.Value, "request": m.Request, "op": m.Op, "observed": m.ObservedField, "host": m.Host}
	out := slices.Clone(importSlots)
	for i := range out {
		out[i].Field = fields[out[i].Name]
	}
	return out
}

// importResultView turns a result into the page's words and rows.
func importResultView(res *logs.Result) *views.ImportResult {
	r := &views.ImportResult{Title: res.Scenario.Title,
		Counts: fmt.Sprintf("%d lines read, %d events, %d lines not events, %d malformed.",
			res.Lines, len(res.Scenario.Events), res.NonEvents, res.ProblemCount)}
	observed := map[int]string{}
	for _, o := range res.Observed {
		observed[o.Step] = string(o.Outcome)
	}
	for i, st := range res.Trace.Steps {
		r.Steps = append(r.Steps, views.ImportStep{Index: st.Index, Actor: st.Event.Actor, Event: lab.DescribeEvent(st.Event),
			Source: res.Sources[i], Observed: observed[st.Index]})
	}
	r.Against, r.Gaps = verdictsView(res.Against), gapsView(res.Gaps)
	for _, p := range res.Problems {
		r.Problems = append(r.Problems, p.String())
	}
	for _, l := range res.Legend {
		r.Legend = append(r.Legend, fmt.Sprintf("%s %s is %q", l.Field, l.Name, l.Original))
	}
	r.Orderings = orderingsView(res.Orderings)
	return r
}

func verdictsView(vs []logs.Verdict) []views.ImportVerdict {
	var out []views.ImportVerdict
	for _, v := range vs {
		out = append(out, views.ImportVerdict{Policy: v.Policy, Agrees: v.Agrees, Words: v.Words})
	}
	return out
}

func gapsView(gs []logs.Gap) []views.ImportGap {
	var out []views.ImportGap
	for _, g := range gs {
		out = append(out, views.ImportGap{Kind: g.Kind, Sources: strings.Join(g.Sources, ", "), Words: g.Words})
	}
	return out
}

// orderingsView says how many orderings the clocks allow and, per policy,
// the worst class over them. A stopped exploration claims no more than it
// saw: its counts cover the orderings followed to their end (usually
// none), and its worst class is the worst met in the steps taken.
func orderingsView(x *lab.Exploration) []string {
	if x == nil {
		return nil
	}
	head := fmt.Sprintf("%s orderings are consistent with the logs and the skew.", x.Orderings)
	counted := x.Orderings.Sign() > 0
	switch {
	case x.Complete:
	case counted:
		head = fmt.Sprintf("Stopped early (%s): not every ordering was explored, and the counts cover only the %s followed to their end.",
			x.Stopped, x.Orderings)
	default:
		head = fmt.Sprintf("Stopped early (%s) before any ordering was followed to its end: none is counted.", x.Stopped)
	}
	out := []string{head}
	for _, pe := range x.Policies {
		var words string
		switch {
		case pe.Worst == nil && x.Complete:
			words = "no violation in any of them"
		case pe.Worst == nil:
			words = "no violation met in the steps taken"
		case x.Complete:
			words = fmt.Sprintf("worst %s, in %s of them", *pe.Worst, pe.ByClass[*pe.Worst])
		case counted:
			words = fmt.Sprintf("worst met %s, in %s of those counted", *pe.Worst, pe.ByClass[*pe.Worst])
		default:
			words = fmt.Sprintf("worst met in the steps taken: %s", *pe.Worst)
		}
		out = append(out, fmt.Sprintf("%s: %s", pe.Policy, words))
	}
	return out
}

// saveImportAnd saves the import, with its observations for "save" or as
// a plain scenario for the editor, and goes there.
func (s *Server) saveImportAnd(c echo.Context, op string, in *importInput, res *logs.Result) error {
	if op == "editor" {
		run, err := s.save(c, res.Scenario)
		if err != nil {
			return err
		}
		return seeOther(c, paths.Link(paths.RouteEditor, paths.RunFrom(run.ID), nil))
	}
	run, err := s.saveImport(c, in, res)
	if err != nil {
		return err
	}
	return seeOther(c, paths.RunPath(run.ID))
}

// saveImport keeps the import with what it saw, as POST /api/imports
// does: logs.ForSaving's part of the result, orderings and clocks included.
func (s *Server) saveImport(c echo.Context, in *importInput, res *logs.Result) (store.Run, error) {
	var files []string
	for _, f := range in.files {
		files = append(files, f.Name)
	}
	saved := logs.ForSaving(res, files)
	return s.saveImported(c, res.Scenario, res.Trace, &saved)
}

// importedOf decodes a run's observed column when an import saved it.
func importedOf(run store.Run) *logs.Saved {
	if run.Observed == nil || !strings.Contains(string(run.Observed), `"source":"import"`) {
		return nil
	}
	var ob logs.Saved
	if err := json.Unmarshal(run.Observed, &ob); err != nil || ob.Source != "import" {
		return nil
	}
	return &ob
}

// importedView shows a saved import: each step with what the logs say the
// resource did beside what the closest policy expected.
func importedView(sr *savedRun) *views.ImportedRun {
	ob, tr := sr.Imported, sr.Trace
	if ob == nil {
		return nil
	}
	v := &views.ImportedRun{Files: ob.Files, Against: verdictsView(ob.Against), Gaps: gapsView(savedGaps(ob)), Closest: lab.Unfenced,
		Orderings: orderingsView(ob.Orderings), Skew: ob.Skew}
	if len(ob.Against) > 0 {
		v.Closest = ob.Against[0].Policy
	}
	observed := map[int]logs.Outcome{}
	for _, o := range ob.Observed {
		observed[o.Step] = o.Outcome
	}
	inferred := map[int]string{}
	for _, e := range ob.Inferred {
		inferred[e.Step] = e.Words
	}
	if c := ob.Clocks; c != nil {
		for _, o := range c.Offsets {
			v.Clocks = append(v.Clocks, fmt.Sprintf("%s %+gms: %s", o.Host, o.OffsetMS, o.Words))
		}
		if c.Contradiction != nil {
			v.Clocks = append(v.Clocks,
				"The clocks cannot all be repaired: "+c.Contradiction.Words+" ("+strings.Join(c.Contradiction.Sources, ", ")+")")
		}
	}
	pi := lab.PolicyIndex(v.Closest)
	for i, st := range tr.Steps {
		row := views.ImportedRow{Index: st.Index, Actor: st.Event.Actor, Event: lab.DescribeEvent(st.Event), Inferred: inferred[st.Index]}
		if i < len(ob.Sources) {
			row.Source = ob.Sources[i]
		}
		if o, ok := observed[st.Index]; ok {
			row.Expected, row.Observed = modelWord(st.Outcomes[pi].Decision), string(o)
			row.Agree = logs.Agrees(o, st.Outcomes[pi].Decision)
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

// savedGaps are a saved import's gaps as its page can show them: a run
// saved without its orderings does not point to them.
func savedGaps(ob *logs.Saved) []logs.Gap {
	if ob.Orderings != nil {
		return ob.Gaps
	}
	out := slices.Clone(ob.Gaps)
	for i := range out {
		out[i].Words = strings.Replace(out[i].Words, "; the orderings the clocks allow try every one",
			"; the orderings the clocks allow were not saved with this run", 1)
	}
	return out
}

// importedMarkdown adds, for a saved import, the verdicts, each observed
// step beside what the closest policy would have done, the orderings the
// clocks allow when they were saved, and the gaps.
func importedMarkdown(w io.Writer, ob *logs.Saved, tr *lab.Trace) error {
	var b strings.Builder
	files := make([]string, len(ob.Files))
	for i, f := range ob.Files {
		files[i] = export.Cell(f)
	}
	fmt.Fprintf(&b, "\n## What the logs say the resource did\n\nImported from %s.\n\n", strings.Join(files, ", "))
	for _, v := range ob.Against {
		mark := "✗"
		if v.Agrees {
			mark = "✓"
		}
		fmt.Fprintf(&b, "- %s **%s** %s\n", mark, v.Policy, v.Words)
	}
	closest := lab.Unfenced
	if len(ob.Against) > 0 {
		closest = ob.Against[0].Policy
	}
	if pi := lab.PolicyIndex(closest); len(ob.Observed) > 0 && pi >= 0 {
		fmt.Fprintf(&b, "\n### The logs beside %s, step by step\n\n", closest)
		b.WriteString("The logs' “applied” is the model's “accepted”.\n\n")
		fmt.Fprintf(&b, "| # | event | line | the logs | %s |\n|---|---|---|---|---|\n", closest)
		for _, o := range ob.Observed {
			if o.Step < 1 || o.Step > len(tr.Steps) {
				continue
			}
			st := tr.Steps[o.Step-1]
			d := st.Outcomes[pi].Decision
			mark := "✓"
			if !logs.Agrees(o.Outcome, d) {
				mark = "✗ differs"
			}
			src := ""
			if o.Step <= len(ob.Sources) {
				src = export.Cell(ob.Sources[o.Step-1])
			}
			fmt.Fprintf(&b, "| %d | %s | %s | %s | %s %s |\n",
				st.Index, export.Cell(lab.DescribeEvent(st.Event)), src, o.Outcome, modelWord(d), mark)
		}
	}
	if lines := orderingsView(ob.Orderings); len(lines) > 0 {
		fmt.Fprintf(&b, "\n### Every ordering the clocks allow (skew %s)\n\n", export.Cell(ob.Skew))
		for _, l := range lines {
			fmt.Fprintf(&b, "- %s\n", export.Cell(l))
		}
	}
	if c := ob.Clocks; c != nil && (len(c.Offsets) > 0 || c.Contradiction != nil) {
		b.WriteString("\n### Clocks\n\n")
		for _, o := range c.Offsets {
			fmt.Fprintf(&b, "- %s %+gms: %s\n", export.Cell(o.Host), o.OffsetMS, export.Cell(o.Words))
		}
		if c.Contradiction != nil {
			fmt.Fprintf(&b, "- The clocks cannot all be repaired: %s (%s)\n",
				export.Cell(c.Contradiction.Words), export.Cell(strings.Join(c.Contradiction.Sources, ", ")))
		}
	}
	for i, e := range ob.Inferred {
		if i == 0 {
			b.WriteString("\n### Inferred steps\n\n")
		}
		fmt.Fprintf(&b, "- step %d, %s: %s\n", e.Step, e.Kind, export.Cell(e.Words))
	}
	if gaps := savedGaps(ob); len(gaps) > 0 {
		b.WriteString("\n### Gaps in the logs\n\n")
		for _, g := range gaps {
			fmt.Fprintf(&b, "- `%s` %s: %s\n", g.Kind, export.Cell(strings.Join(g.Sources, ", ")), g.Words)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// modelWord is a policy's decision in the logs' words: "applied" for the
// model's accepted, which the section explains once.
func modelWord(d lab.Decision) string {
	if d == lab.Accepted {
		return "applied"
	}
	return string(d)
}
