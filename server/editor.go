package server

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/lab/draft"
	"fencelab/views"
	"fencelab/views/export"
	"fencelab/views/paths"
)

// handleEditor opens the timeline editor: blank, on a copy of a built-in
// (?from=NAME) or on a copy of a saved run (?from=r/ID).
func (s *Server) handleEditor(c echo.Context) error {
	d, err := s.draftFrom(c, c.QueryParam("from"))
	if err != nil {
		return err
	}
	d.Policies = s.query(c).Policies
	return render(c, http.StatusOK, views.Editor(views.EditorPage{Draft: d, Result: replayDraft(&d)}))
}

// draftFrom is the draft the editor opens for from: blank, or a copy of
// what from names.
func (s *Server) draftFrom(c echo.Context, from string) (draft.Draft, error) {
	if from == "" {
		return draft.Blank(), nil
	}
	o, err := s.resolveFrom(c.Request().Context(), from)
	if err != nil {
		return draft.Draft{}, err
	}
	whose := from
	if o.runID != "" {
		whose = "run " + o.runID
	}
	return copyOf(o.scenario, from, whose), nil
}

// copyOf is the draft of a copy of sc: its description is the original's,
// labelled as such ("paused-worker's lesson, before your edit: …"), since
// an edit may make any of its sentences false; the editor shows it open,
// as it will be saved.
func copyOf(sc *lab.Scenario, from, whose string) draft.Draft {
	d := draft.Of(sc, from)
	d.Description = export.Original(export.LessonLabel(whose, export.BeforeEdit), sc.Description)
	return d
}

// handleEditorForm is the editor without JavaScript: every button posts
// the whole form, and the answer is the page with the button's change made
// and the draft replayed. editor.js posts here too for changes that
// redraw the cards (add, delete, duplicate, renames).
func (s *Server) handleEditorForm(c echo.Context) error {
	form, err := readForm(c)
	if err != nil {
		return err
	}
	d := decodeDraft(form)
	focus := draft.Apply(&d, form.Get("op"))
	page := views.EditorPage{Draft: d, Result: replayDraft(&d), Focus: focus}
	return render(c, http.StatusOK, views.Editor(page))
}

// handleEditorPreview replays the posted draft and answers only the
// result: verdicts, table and diagram, or the errors to put on the cards.
// An invalid draft is a 200 too: the answer is what the editor shows.
func (s *Server) handleEditorPreview(c echo.Context) error {
	form, err := readForm(c)
	if err != nil {
		return err
	}
	d := decodeDraft(form)
	return render(c, http.StatusOK, views.EditorResultBody(replayDraft(&d)))
}

// handleEditorSave stores the draft as a run and sends the browser to its
// link; a draft that is not valid comes back with its errors on the cards.
func (s *Server) handleEditorSave(c echo.Context) error {
	return s.saveDraft(c, func(id string, ps []lab.Policy) string { return paths.Link(paths.RunPath(id), "", ps) })
}

// handleEditorExplore stores the draft as a run and explores its every
// ordering: the explorer reads saved runs, and its counterexamples lead
// back to the editor.
func (s *Server) handleEditorExplore(c echo.Context) error {
	return s.saveDraft(c, func(id string, ps []lab.Policy) string { return paths.Link(paths.RouteExplore, paths.RunFrom(id), ps) })
}

// saveDraft saves the posted draft and redirects to target(id, the
// policies a link keeps).
func (s *Server) saveDraft(c echo.Context, target func(id string, ps []lab.Policy) string) error {
	form, err := readForm(c)
	if err != nil {
		return err
	}
	d := decodeDraft(form)
	sc, err := draft.Compile(&d)
	var inv *lab.ValidationError
	if errors.As(err, &inv) {
		page := views.EditorPage{Draft: d, Result: views.InvalidEditorResult(&d, inv.Errors)}
		return render(c, http.StatusUnprocessableEntity, views.Editor(page))
	}
	if err != nil {
		return err
	}
	run, err := s.save(c, sc)
	if err != nil {
		return err
	}
	return seeOther(c, target(run.ID, queryOf(form).kept()))
}

// decodeDraft reads the editor's form and the policies it compares.
func decodeDraft(form url.Values) draft.Draft {
	d := draft.Decode(form)
	d.Policies = queryOf(form).Policies
	return d
}

// replayDraft replays a valid draft, or places the engine's errors where
// the mistakes were.
func replayDraft(d *draft.Draft) views.EditorResult {
	sc, err := draft.Compile(d)
	var inv *lab.ValidationError
	switch {
	case errors.As(err, &inv):
		return views.InvalidEditorResult(d, inv.Errors)
	case err != nil: // a draft compiles to valid JSON: not expected
		return views.InvalidEditorResult(d, []lab.FieldError{{Field: "scenario", Message: err.Error()}})
	}
	return views.NewEditorResult(d, newReport(sc, lab.Replay(sc), d.Policies))
}
