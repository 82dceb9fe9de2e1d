package server

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/lab/logs"
	"fencelab/views/diagram"
)

// What a saved import's pictures, embed and preview show: a policy's
// replay of the imported timeline, always beside what the logs say the
// resource did, and never the replay alone as if it were the incident.

// importedPicture is what the diagram of a saved import draws beside the
// replay, from what the import observed.
func importedPicture(ob *logs.Saved) *diagram.Imported {
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
func writeImportedPNG(c echo.Context, q pageQuery, sr *savedRun, size diagram.Size) error {
	var buf bytes.Buffer
	if err := diagram.ImportedPNG(&buf, sr.Scenario, sr.Trace, q.Diagram, size, importedPicture(sr.Imported)); err != nil {
		return fmt.Errorf("draw the picture of run %s: %w", sr.Run.ID, err)
	}
	return c.Blob(http.StatusOK, pngType, buf.Bytes())
}

// writeImportedSVG is the .svg of a saved import.
func writeImportedSVG(c echo.Context, q pageQuery, sr *savedRun) error {
	var buf bytes.Buffer
	if err := diagram.ImportedSVG(&buf, sr.Scenario, sr.Trace, q.Diagram, importedPicture(sr.Imported)); err != nil {
		return fmt.Errorf("draw diagram of run %s: %w", sr.Run.ID, err)
	}
	return c.Blob(http.StatusOK, svgType, buf.Bytes())
}
