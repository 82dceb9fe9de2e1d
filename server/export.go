package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/server/store"
	"fencelab/views/diagram"
	"fencelab/views/export"
	"fencelab/views/paths"
)

const (
	markdownType = "text/markdown; charset=utf-8"
	svgType      = "image/svg+xml; charset=utf-8"
)

// runFormats are the ways a saved run can be read at /r/{id} and
// /r/{id}.{suffix}: the page, and the exports for a postmortem.
// They are built once, by routes, into s.formats.
func (s *Server) runFormats() map[string]echo.HandlerFunc {
	return map[string]echo.HandlerFunc{
		"":     s.cached(revalidateCache, s.handleRunPage),
		"md":   s.cached(exportCache, s.handleRunMarkdown),
		"json": s.cached(immutableCache, s.handleAPIRun),
		"svg":  shareable(s.cached(exportCache, s.handleRunSVG)),
		"png":  shareable(s.cached(exportCache, s.handleRunPNG)),
	}
}

// handleRunPath serves /r/{id} and its exports. Echo's :id takes the
// whole segment, suffix included, so the suffix is split off here and the
// id put back as the parameter the handlers read. An unknown suffix is a
// 404 before any query, as is an id that cannot be one.
func (s *Server) handleRunPath(c echo.Context) error {
	id, suffix := splitSuffix(c.Param("id"))
	h, ok := s.formats[suffix]
	if !ok {
		return store.ErrNotFound
	}
	c.SetParamValues(id)
	return h(c)
}

// splitSuffix splits "ID.md" into "ID" and "md". A segment without a dot
// has the empty suffix; one ending in a dot has "." as its suffix, which
// no format answers.
func splitSuffix(segment string) (id, suffix string) {
	i := strings.LastIndexByte(segment, '.')
	switch {
	case i < 0:
		return segment, ""
	case i == len(segment)-1:
		return segment[:i], "."
	}
	return segment[:i], segment[i+1:]
}

// handleRunMarkdown writes the run for a postmortem: the table of the
// policies in ?p= (default unfenced, fenced), the verdicts and the link;
// a saved probe's, as its page, under the policy its receiver claims, with
// verdicts that say they are the model's.
func (s *Server) handleRunMarkdown(c echo.Context) error {
	sr, err := s.loadSaved(c)
	if err != nil {
		return err
	}
	q := s.query(c)
	var opts export.MarkdownOptions
	if observed := observedView(sr); observed != nil {
		if !q.Asked {
			q = q.withPolicies([]lab.Policy{observed.Policy})
		}
		opts.ModelNote = observed.ModelNote()
	}
	opts.Diagram = q.Diagram
	opts.Link = s.absURL(c, paths.Link(paths.RunPath(sr.Run.ID), "", q.kept()))
	opts.Picture = s.absURL(c, paths.RunFullPNGPath(sr.Run.ID, opts.Diagram))
	var buf bytes.Buffer
	if err := export.MarkdownWith(&buf, sr.Scenario, sr.Trace, q.Policies, opts); err != nil {
		return fmt.Errorf("write Markdown of run %s: %w", sr.Run.ID, err)
	}
	if err := observedMarkdown(&buf, sr); err != nil {
		return err
	}
	return c.Blob(http.StatusOK, markdownType, buf.Bytes())
}

// handleRunSVG writes the space-time diagram alone, under the policy in
// ?d= (by default the one the run page shows).
func (s *Server) handleRunSVG(c echo.Context) error {
	sr, err := s.loadSaved(c)
	if err != nil {
		return err
	}
	if sr.Imported != nil {
		return writeImportedSVG(c, s.query(c), sr)
	}
	var buf bytes.Buffer
	if err := diagram.SVG(&buf, sr.Scenario, sr.Trace, s.query(c).Diagram); err != nil {
		return fmt.Errorf("draw diagram of run %s: %w", sr.Run.ID, err)
	}
	return c.Blob(http.StatusOK, svgType, buf.Bytes())
}

// decodeRun decodes the scenario and trace of a run as they were stored;
// the trace is not replayed again.
func decodeRun(run store.Run) (*lab.Scenario, *lab.Trace, error) {
	var sc lab.Scenario
	var tr lab.Trace
	if err := json.Unmarshal(run.Scenario, &sc); err != nil {
		return nil, nil, fmt.Errorf("decode scenario of run %s: %w", run.ID, err)
	}
	if err := json.Unmarshal(run.Trace, &tr); err != nil {
		return nil, nil, fmt.Errorf("decode trace of run %s: %w", run.ID, err)
	}
	return &sc, &tr, nil
}
