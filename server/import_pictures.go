package server

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/lab/logs"
	"fencelab/server/store"
	"fencelab/views"
	"fencelab/views/diagram"
)

// What a saved import's pictures, embed and preview show: a policy's
// replay of the imported timeline, always beside what the logs say the
// resource did, and never the replay alone as if it were the incident.

// importedPicture is what the diagram of a saved import draws beside the
// replay, or nil for a run that no import saved.
func importedPicture(run store.Run) *diagram.Imported {
	ob := importedOf(run)
	if ob == nil {
		return nil
	}
	im := &diagram.Imported{Observed: map[int]string{}, Behaved: behavedLike(ob)}
	for _, o := range ob.Observed {
		im.Observed[o.Step] = string(o.Outcome)
	}
	return im
}

// behavedLike is the first policy that agrees with every observed
// outcome, or "".
func behavedLike(ob *logs.Saved) lab.Policy {
	for _, v := range ob.Against {
		if v.Agrees {
			return v.Policy
		}
	}
	return ""
}

// importedLesson is a saved import's link preview text: which policy the
// resource behaved like, in the first agreeing verdict's words, or that
// none agrees and where the first differs.
func importedLesson(ob *logs.Saved) string {
	for _, v := range ob.Against {
		if v.Agrees {
			return "From the logs: " + plainWords(v.Words)
		}
	}
	if len(ob.Against) > 0 {
		return "From the logs: the resource behaved like none of the policies; " + plainWords(ob.Against[0].Words)
	}
	return "From the logs: they say nothing of what the resource did."
}

// plainWords drops the backticks that mark a policy's name as code.
func plainWords(s string) string { return strings.ReplaceAll(s, "`", "") }

// writeImportedPNG draws a saved import under ?d=: the card or the full
// picture, each with the logs' column.
func writeImportedPNG(c echo.Context, id string, sc *lab.Scenario, tr *lab.Trace, size diagram.Size, im *diagram.Imported) error {
	var buf bytes.Buffer
	if err := diagram.ImportedPNG(&buf, sc, tr, diagramPolicy(c), size, im); err != nil {
		return fmt.Errorf("draw the picture of run %s: %w", id, err)
	}
	return c.Blob(http.StatusOK, pngType, buf.Bytes())
}

// writeImportedSVG is the .svg of a saved import.
func writeImportedSVG(c echo.Context, id string, sc *lab.Scenario, tr *lab.Trace, im *diagram.Imported) error {
	var buf bytes.Buffer
	if err := diagram.ImportedSVG(&buf, sc, tr, diagramPolicy(c), im); err != nil {
		return fmt.Errorf("draw diagram of run %s: %w", id, err)
	}
	return c.Blob(http.StatusOK, svgType, buf.Bytes())
}

// renderImportedEmbed is the embed of a saved import: the logs' verdict
// above the replay, and the diagram with the logs' column.
func renderImportedEmbed(c echo.Context, run store.Run, sc *lab.Scenario, tr *lab.Trace) error {
	theme, err := embedTheme(c.QueryParam("theme"))
	if err != nil {
		return err
	}
	chosen := embedPolicies(c)
	d := diagramPolicy(c)
	page := views.EmbedPage{Report: markImported(views.NewReport(sc, tr, chosen), run), Diagram: d,
		Link: fullLink(views.RunPath(run.ID), chosen, d), Kind: "saved import", Theme: theme}
	return render(c, http.StatusOK, views.Embed(page))
}

// markImported gives a report of a saved import what its diagram and its
// embed show beside the replay; any other run's report is left alone.
func markImported(r *views.Report, run store.Run) *views.Report {
	if ob := importedOf(run); ob != nil {
		r.Imported, r.Logs = importedPicture(run), importedLesson(ob)
	}
	return r
}

// embedKind is what an embed calls the run: a saved import, or a saved run.
func embedKind(run store.Run) string {
	if importedOf(run) != nil {
		return "saved import"
	}
	return "saved run"
}
