package server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/lab/logs"
	"fencelab/server/internal/upload"
	"fencelab/views"
	"fencelab/views/paths"
)

// Limits of the import page: logs are larger than scenarios, but a page
// that read anything would let one upload hold the server's memory.
const (
	maxImportBody  = 4 << 20 // bytes of one posted form, logs included
	maxImportFiles = 4       // files, one per host
	importBudget   = 200_000 // states explored for --skew on the page
	importDeadline = 5 * time.Second
)

// errImportTooLarge refuses an upload over the limit, before reading it.
var errImportTooLarge = echo.NewHTTPError(http.StatusRequestEntityTooLarge,
	"The logs are over the import page's limit of 4 MiB: import a shorter window, or use fencelab import on your machine, which has no limit.")

// errSavedImportTooLarge refuses a saved import over the limit.
var errSavedImportTooLarge = echo.NewHTTPError(http.StatusRequestEntityTooLarge,
	"The import is over the limit of 4 MiB for a saved import: import a shorter window (--since, --until).")

// bodyLimit is the most a request to path may send, and the error that
// refuses more: the import page takes logs, every other route 64 KiB.
func bodyLimit(path string) (int64, error) {
	switch path {
	case paths.RouteImport, paths.RouteImportPreview:
		return maxImportBody, errImportTooLarge
	case paths.RouteAPIImports:
		return maxImportBody, errSavedImportTooLarge
	}
	return maxBody, errTooLarge
}

// importSlots are the facts of a mapping, in the form's order.
var importSlots = []views.MapSlot{
	{Name: "kind", Label: "Message", Help: "what the line is (required)"},
	{Name: "time", Label: "Time", Help: "RFC 3339 or Unix time"},
	{Name: "actor", Label: "Actor", Help: "the worker"},
	{Name: "token", Label: "Token", Help: "the lease generation"},
	{Name: "scope", Label: "Scope", Help: "the lease, e.g. a job id"},
	{Name: "resource", Label: "Resource", Help: "what is written"},
	{Name: "value", Label: "Value", Help: "what a write writes"},
	{Name: "request", Label: "Request", Help: "matches a send to its deliver"},
	{Name: "op", Label: "Op key", Help: "an idempotency key"},
	{Name: "observed", Label: "Observed", Help: "what the resource did"},
	{Name: "host", Label: "Host", Help: "whose clock (default: the file)"},
}

func (s *Server) handleImportPage(c echo.Context) error {
	return render(c, http.StatusOK, views.Import(blankImportPage()))
}

func blankImportPage() views.ImportPage {
	return views.ImportPage{Files: []views.ImportFile{{}}, Slots: importSlots, MaxSize: "4 MiB"}
}

// handleImportForm imports the posted logs and shows the result, or does
// what the pressed button asks: download the mapping, open the scenario
// in the editor, or save it with its observations.
func (s *Server) handleImportForm(c echo.Context) error {
	in, err := s.readImportForm(c)
	if err != nil {
		return err
	}
	// After the page, which shows the logs again from their spools.
	defer in.close()
	if c.FormValue("op") == "example" { // the form is read: FormValue parses nothing more
		if in, err = exampleInput(); err != nil {
			return err
		}
	}
	switch c.FormValue("op") {
	case "suggest": // the first step: the look at the logs, before any import
		page := importPageOf(in)
		return renderImport(c, http.StatusOK, views.Import(page))
	case "suggestion":
		return handleImportSuggestion(c, in)
	}
	page, res := runImport(c.Request().Context(), in)
	switch c.FormValue("op") {
	case "mapping":
		c.Response().Header().Set(echo.HeaderContentDisposition, `attachment; filename="fencelab-mapping.json"`)
		return c.Blob(http.StatusOK, "application/json", in.mapping.JSON())
	case "editor", "save":
		if res == nil {
			return renderImport(c, http.StatusUnprocessableEntity, views.Import(page))
		}
		return s.saveImportAnd(c, c.FormValue("op"), in, res)
	}
	status := http.StatusOK
	if len(page.Errors) > 0 {
		status = http.StatusUnprocessableEntity
	}
	return renderImport(c, status, views.Import(page))
}

// renderImport writes an import page through a buffer of at most
// importPageBuffer, rather than through render's buffer of the whole
// page: the page shows the posted logs again, up to 4 MiB and more once
// escaped, and a buffer of it, grown by doubling, held as much again as
// the logs while it was written. A page that fits (most do) goes out in
// one piece once rendered, as render's does, and a failed render is still
// an error page; a larger one goes out as it is rendered. Its bytes are
// render's, NULs replaced as they pass.
func renderImport(c echo.Context, status int, page templ.Component) error {
	out := &lazyHeader{c: c, status: status}
	w := bufio.NewWriterSize(out, importPageBuffer)
	err := page.Render(c.Request().Context(), nulReplacer{w})
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fmt.Errorf("render %s: %w", c.Request().URL.Path, err)
	}
	if !out.sent { // an empty page
		out.Write(nil)
	}
	return nil
}

// importPageBuffer is the most of an import page held before it is sent.
const importPageBuffer = 256 << 10

// lazyHeader writes the page's status and type with its first bytes, so
// that a render that fails before them still becomes an error page.
type lazyHeader struct {
	c      echo.Context
	status int
	sent   bool
}

func (l *lazyHeader) Write(p []byte) (int, error) {
	if !l.sent {
		l.sent = true
		l.c.Response().Header().Set(echo.HeaderContentType, htmlType)
		l.c.Response().WriteHeader(l.status)
	}
	return l.c.Response().Write(p)
}

// nulReplacer writes to w with each NUL byte replaced by U+FFFD, as
// replaceNUL does to a whole page.
type nulReplacer struct{ w io.Writer }

func (r nulReplacer) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, 0)
		if i < 0 {
			if _, err := r.w.Write(p); err != nil {
				return 0, err
			}
			break
		}
		if _, err := r.w.Write(p[:i]); err != nil {
			return 0, err
		}
		if _, err := io.WriteString(r.w, "\uFFFD"); err != nil {
			return 0, err
		}
		p = p[i+1:]
	}
	return n, nil
}

// handleImportPreview answers the page's live preview: the result section only.
func (s *Server) handleImportPreview(c echo.Context) error {
	in, err := s.readImportForm(c)
	if err != nil {
		return err
	}
	defer in.close()
	if c.FormValue("op") == "suggest" {
		if strings.Contains(c.Request().Header.Get(echo.HeaderAccept), echo.MIMEApplicationJSON) {
			// What fencelab import --suggest --json prints.
			return writeJSON(c, http.StatusOK, map[string]any{"mapping": in.survey.SuggestMapping(), "files": in.survey.Files})
		}
		return render(c, http.StatusOK, views.ImportSuggestSection(suggestionView(in.survey)))
	}
	page, _ := runImport(c.Request().Context(), in)
	return render(c, http.StatusOK, views.ImportResultSection(page.Result, page.Errors))
}

// importInput is what the form posted.
type importInput struct {
	files   []views.ImportFile
	mapping *logs.Mapping // what the import runs
	flat    logs.Flat     // the form's view of it
	survey  *logs.Survey
	kinds   []views.ValueChoice
	outcome *views.OutcomeForm
	skew    string
	errs    []string
	loaded  *views.LoadedMapping // a version 2 mapping the form cannot show
	form    *upload.Form         // what holds the logs, until close
	lines   *bufio.Reader        // what the survey and the import read each log through
}

// close frees the spools of the posted logs: the handler defers it once
// the form is read, so that it runs on every path, a panic's included.
func (in *importInput) close() { in.form.Close() }

// errImportInline refuses a large form that is not multipart.
var errImportInline = echo.NewHTTPError(http.StatusRequestEntityTooLarge,
	"A form of more than 256 KiB must be sent as multipart/form-data, as the import page sends it: its logs are then read as they arrive.")

// errImportSpool refuses logs the server found no room to spool.
var errImportSpool = echo.NewHTTPError(http.StatusInsufficientStorage,
	"The server has no room on its disk to hold these logs while it reads them. Please try again later, or use fencelab import on your machine.")

// noRoomToSpool counts an import refused for want of room in the
// temporary directory, and logs it once a minute, as a full store is.
func (s *Server) noRoomToSpool(err error) {
	s.metrics.spoolFailed.Inc()
	if n, ok := s.spool.note(time.Now()); ok {
		s.log.Error("no room to spool an import's logs", "dir", os.TempDir(), "err", err, "refused_since_last_line", n)
	}
}

// readImportForm reads the logs and the mapping from the form. An upload
// over the limit is a 413; a mapping file that does not read is an error
// shown on the page.
func (s *Server) readImportForm(c echo.Context) (*importInput, error) {
	req := c.Request()
	form, err := upload.Read(req) // on an error, it has freed its spools
	var (
		big   *http.MaxBytesError
		spool *upload.SpoolError
	)
	switch {
	case errors.Is(err, upload.ErrInline):
		return nil, errImportInline
	case errors.As(err, &big):
		return nil, errImportTooLarge
	case errors.As(err, &spool):
		s.noRoomToSpool(err)
		return nil, errImportSpool.WithInternal(err)
	case err != nil:
		return nil, echo.NewHTTPError(http.StatusBadRequest, "The form could not be read.").SetInternal(err)
	}
	in := &importInput{skew: strings.TrimSpace(req.FormValue("skew")), form: form, lines: lineBuffer()}
	handed := false
	defer func() { // an error or a panic before the handler has the form
		if !handed {
			in.close()
		}
	}()
	if err := in.readFiles(form); err != nil {
		return nil, err
	}
	in.survey = surveyOf(in.files, in.lines)
	in.readMapping(form)
	handed = true
	return in, nil
}

// readFiles takes the pasted logs, then the uploaded ones.
func (in *importInput) readFiles(form *upload.Form) error {
	names := form.Values["name"]
	for i, t := range form.Logs {
		f := fileOf(t)
		if f.Blank() {
			continue
		}
		f.Name = fmt.Sprintf("log-%d", len(in.files)+1)
		if i < len(names) && strings.TrimSpace(names[i]) != "" {
			f.Name = strings.TrimSpace(names[i])
		}
		in.files = append(in.files, f)
	}
	for _, u := range form.Uploads {
		if f := fileOf(u); !f.Blank() {
			in.files = append(in.files, f)
		}
	}
	if len(in.files) > maxImportFiles {
		return echo.NewHTTPError(http.StatusUnprocessableEntity,
			fmt.Sprintf("%d files: the import page takes at most %d, one per host.", len(in.files), maxImportFiles))
	}
	return nil
}

// fileOf is a posted log as the page holds it: read from its spool, or
// from memory when it is small.
func fileOf(u upload.File) views.ImportFile {
	if !u.Spooled() {
		return views.ImportFile{Name: u.Name, Text: u.Text()}
	}
	body, size := u.Open()
	return views.ImportFile{Name: u.Name, Body: body, Size: size}
}

// readMapping builds the mapping: from an uploaded mapping file, else from
// the mapping the page keeps (a version 2 mapping loaded before, unless
// the reviewer turned it off), else from the form's fields, or, when the
// form names no field yet, from the survey.
func (in *importInput) readMapping(form *upload.Form) {
	var m *logs.Mapping
	if f := form.Mapfile; f != nil && f.Text() != "" {
		var err error
		if m, err = logs.ReadMapping(strings.NewReader(f.Text())); err != nil {
			in.errs = append(in.errs, f.Name+": "+err.Error())
		}
	} else if kept := form.Values.Get("mapping_json"); kept != "" && form.Values.Get("mapping_off") == "" {
		var err error
		if m, err = logs.ReadMapping(strings.NewReader(kept)); err != nil {
			in.errs = append(in.errs, "the loaded mapping: "+err.Error())
		}
	}
	if m != nil {
		in.useMapping(m)
		return
	}
	flat := flatFromForm(form.Values)
	if flat.KindField == "" && len(form.Values["kv_value"]) == 0 {
		flat = in.survey.Suggest()
	}
	in.mapping, in.flat = flat.Mapping(), flat
	in.kinds, in.outcome = in.choices(flat)
}

// flatFromForm reads the slots and the values' choices.
func flatFromForm(f url.Values) logs.Flat {
	get := func(slot string) string { return strings.TrimSpace(f.Get("map_" + slot)) }
	m := logs.Flat{Time: get("time"), Actor: get("actor"), Token: get("token"), Scope: get("scope"),
		Resource: get("resource"), Value: get("value"), Request: get("request"), Op: get("op"), Host: get("host"),
		KindField: get("kind"), Kinds: map[string]lab.Kind{}}
	for i, v := range f["kv_value"] {
		if i < len(f["kv_kind"]) && f["kv_kind"][i] != "" {
			m.Kinds[v] = lab.Kind(f["kv_kind"][i])
		}
	}
	if obs := get("observed"); obs != "" {
		m.ObservedField, m.Outcomes = obs, map[string]logs.Outcome{}
		for i, v := range f["ov_value"] {
			if i < len(f["ov_outcome"]) && f["ov_outcome"][i] != "" {
				m.Outcomes[v] = logs.Outcome(f["ov_outcome"][i])
			}
		}
	}
	return m
}
