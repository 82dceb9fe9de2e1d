package server

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/labstack/echo/v4"

	"fencelab/docs"
	"fencelab/lab/logs"
	"fencelab/views"
)

// suggestShown is how many message texts of a file the page lists; the
// downloaded suggestion has them all (50 a file at most).
const suggestShown = 12

// suggestionView is the page's first look at the logs: what fencelab
// import --suggest --json prints, file by file.
func suggestionView(s *logs.Survey) *views.ImportSuggestion {
	if s == nil || len(s.Files) == 0 {
		return nil
	}
	m := s.SuggestMapping()
	out := &views.ImportSuggestion{}
	for i, f := range s.Files {
		sf := views.SuggestFile{Name: f.File, Format: string(f.Format), Lines: f.Lines}
		for _, b := range s.Binary {
			if strings.HasPrefix(b, f.File+":") {
				sf.Problem = b
			}
		}
		if sf.Problem != "" {
			out.Files = append(out.Files, sf)
			continue
		}
		for _, what := range []string{"time", "actor", "token", "request"} {
			if c := f.Candidates[what]; len(c) > 0 {
				sf.Candidates = append(sf.Candidates, views.SuggestCandidate{Fact: what, Fields: strings.Join(c, ", ")})
			}
		}
		var rules []logs.KindRule
		if i < len(m.Files) {
			rules = m.Files[i].Kinds
		}
		for j, mc := range f.Messages {
			if j == suggestShown {
				sf.More = len(f.Messages) - j
				break
			}
			msg := views.SuggestMessage{Text: mc.Text, Count: mc.Count, First: mc.First, Kind: string(logs.GuessKind(mc.Text))}
			msg.Pattern = j < len(rules) && rules[j].Match != ""
			sf.Messages = append(sf.Messages, msg)
		}
		out.Files = append(out.Files, sf)
	}
	return out
}

// handleImportSuggestion downloads the suggested mapping, as fencelab
// import --suggest prints it.
func handleImportSuggestion(c echo.Context, in *importInput) error {
	if len(in.files) == 0 {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "There are no logs to suggest a mapping for: paste or upload them first.")
	}
	b := in.survey.SuggestMapping().JSON()
	c.Response().Header().Set(echo.HeaderContentDisposition, `attachment; filename="fencelab-suggested-mapping.json"`)
	return c.Blob(http.StatusOK, "application/json", b)
}

// exampleInput is the page filled with the walkthrough of docs/import:
// its logs, pasted, and its mapping.
func exampleInput() (*importInput, error) {
	in := &importInput{}
	entries, err := fs.ReadDir(docs.Import, "import")
	if err != nil {
		return nil, fmt.Errorf("the example logs: %w", err)
	}
	var mapping []byte
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := fs.ReadFile(docs.Import, path.Join("import", e.Name()))
		if err != nil {
			return nil, fmt.Errorf("the example logs: %w", err)
		}
		if e.Name() == "mapping.json" {
			mapping = b
			continue
		}
		if len(in.files) < maxImportFiles {
			in.files = append(in.files, views.ImportFile{Name: e.Name(), Text: string(b)})
		}
	}
	in.lines = lineBuffer()
	in.survey = surveyOf(in.files, in.lines)
	m, err := logs.ReadMapping(bytes.NewReader(mapping))
	if err != nil {
		return nil, fmt.Errorf("the example mapping: %w", err)
	}
	in.useMapping(m)
	return in, nil
}

// surveyOf looks at each file's lines, read from its spool through lines.
func surveyOf(files []views.ImportFile, lines *bufio.Reader) *logs.Survey {
	s := logs.NewSurvey()
	for _, f := range files {
		lines.Reset(f.Open())
		s.Add(f.Name, lines, "")
	}
	return s
}

// lineBuffer is the buffer of logs.MaxLine that the survey and the import
// read every file of a request through, one after the other: logs' Add
// uses a reader of that size as it is, where it would allocate one of its
// own, 1 MiB, for each file of each pass. Its lines are read the same:
// Add keeps no line past the next one without copying it.
func lineBuffer() *bufio.Reader { return bufio.NewReaderSize(nil, logs.MaxLine) }

// useMapping makes m the import's mapping; the form shows its top-level
// keys, and a mapping the form cannot hold whole is kept as JSON in the
// page, so that the next post imports with it again.
func (in *importInput) useMapping(m *logs.Mapping) {
	in.mapping, in.flat = m, m.Flat()
	in.kinds, in.outcome = in.choices(in.flat)
	if !m.Version1() {
		in.loaded = &views.LoadedMapping{JSON: string(m.JSON()), Words: mappingWords(m)}
	}
}

// mappingWords says what a version 2 mapping holds.
func mappingWords(m *logs.Mapping) string {
	rules := len(m.Kinds)
	var names []string
	for _, s := range m.Files {
		rules += len(s.Kinds)
		names = append(names, s.Match)
	}
	var parts []string
	if len(m.Files) > 0 {
		parts = append(parts, fmt.Sprintf("%s (%s)", plural(len(m.Files), "section"), strings.Join(names, ", ")))
	}
	if rules > 0 {
		parts = append(parts, plural(rules, "kind rule"))
	}
	if len(parts) == 0 {
		return "facts the form cannot show"
	}
	return strings.Join(parts, ", ")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
