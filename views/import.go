package views

import (
	"bufio"
	"context"
	"io"
	"strings"
	"unicode"

	"github.com/a-h/templ"

	"fencelab/lab"
)

// ImportPage is the page that turns an incident's logs into a scenario:
// the logs, the mapping as a form, and what the import found.
type ImportPage struct {
	Files   []ImportFile // the logs as pasted or uploaded, one per host
	Fields  []string     // every field the logs have, offered for each slot
	Slots   []MapSlot    // where each fact is
	Kinds   []ValueChoice
	Outcome *OutcomeForm // nil until the mapping names an observed field
	Skew    string
	MaxSize string // the most the page takes, in words
	Result  *ImportResult
	Errors  []string // why the import made no scenario
	// Suggest is the first look at the logs (formats, candidate fields,
	// message texts), shown as soon as there are logs.
	Suggest *ImportSuggestion
	// Loaded is a version 2 mapping file the form cannot show; nil for none.
	Loaded *LoadedMapping
}

// ImportFile is one host's log, and the format detected in it. Its text
// is Text, or, when Body is set, Body's Size bytes: a log spooled to a
// file as it was uploaded, which the page copies from there into its
// textarea, never into one string.
type ImportFile struct {
	Name, Text, Format string
	Body               io.ReaderAt
	Size               int64
}

// Open reads the file's text from the start; each call is a reader of its
// own.
func (f ImportFile) Open() io.Reader {
	if f.Body != nil {
		return io.NewSectionReader(f.Body, 0, f.Size)
	}
	return strings.NewReader(f.Text)
}

// Blank says whether the text is only white space, as strings.TrimSpace
// sees it: it reads up to the first other character.
func (f ImportFile) Blank() bool {
	if f.Body == nil {
		return strings.TrimSpace(f.Text) == ""
	}
	r := bufio.NewReaderSize(f.Open(), 512)
	for {
		c, _, err := r.ReadRune()
		if err != nil {
			return true // the end, or a spool that no longer reads: nothing to show
		}
		if !unicode.IsSpace(c) {
			return false
		}
	}
}

// logText is the file's text, escaped as { f.Text } escapes it, copied
// from its spool in chunks: the five characters escaped are ASCII bytes,
// which never begin or end inside a UTF-8 sequence, so a chunk's edge
// changes nothing.
func logText(f ImportFile) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		if f.Body == nil {
			_, err := io.WriteString(w, templ.EscapeString(f.Text))
			return err
		}
		buf := make([]byte, 32<<10)
		r := f.Open()
		for {
			n, err := r.Read(buf)
			if n > 0 {
				if werr := writeEscaped(w, buf[:n]); werr != nil {
					return werr
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	})
}

// writeEscaped writes p with <, >, &, ' and " escaped as
// html.EscapeString escapes them.
func writeEscaped(w io.Writer, p []byte) error {
	last := 0
	for i, c := range p {
		var esc string
		switch c {
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '&':
			esc = "&amp;"
		case '\'':
			esc = "&#39;"
		case '"':
			esc = "&#34;"
		default:
			continue
		}
		if _, err := w.Write(p[last:i]); err != nil {
			return err
		}
		if _, err := io.WriteString(w, esc); err != nil {
			return err
		}
		last = i + 1
	}
	_, err := w.Write(p[last:])
	return err
}

// MapSlot is one fact of the mapping and the log field it is read from.
type MapSlot struct {
	Name, Label, Help, Field string
}

// ValueChoice is one distinct value of a field and what it is mapped to
// ("" for nothing).
type ValueChoice struct{ Value, Choice string }

// OutcomeForm lists the observed field's values and their outcomes.
type OutcomeForm struct {
	Values []ValueChoice
}

// ImportResult is what an import found, ready to show.
type ImportResult struct {
	Title    string
	Counts   string
	Steps    []ImportStep
	Against  []ImportVerdict
	Gaps     []ImportGap
	Problems []string
	Legend   []string
	// Orderings, with a skew: a sentence, then one line per policy.
	Orderings []string
	Scenario  string // the scenario file, for the editor
}

// ImportStep is one event of the imported timeline.
type ImportStep struct {
	Index                          int
	Actor, Event, Source, Observed string
}

// ImportVerdict says how one policy compares with what was observed.
type ImportVerdict struct {
	Policy lab.Policy
	Agrees bool
	Words  string
}

// ImportGap is something the logs do not say, with its lines.
type ImportGap struct {
	Kind, Sources, Words string
}

// ImportKinds are the choices for a message value: nothing, or a kind.
func ImportKinds() []string {
	out := []string{""}
	for _, k := range lab.Kinds() {
		out = append(out, string(k))
	}
	return out
}

// importOutcomes are the choices for an observed value.
var importOutcomes = []string{"", "applied", "rejected", "suppressed"}

func choiceLabel(c string) string {
	if c == "" {
		return "— not an event —"
	}
	return c
}

func outcomeLabel(c string) string {
	if c == "" {
		return "— nothing observed —"
	}
	return c
}

// ImportedRun is a saved import's observations, as its run page shows
// them: what the resource was seen to do beside what the policy closest
// to it expected.
type ImportedRun struct {
	Files   []string
	Closest lab.Policy // the first policy that agrees, or the first listed
	Against []ImportVerdict
	Gaps    []ImportGap
	Rows    []ImportedRow
	// Orderings, when the import was saved with a skew: a sentence, then
	// one line per policy.
	Orderings []string
	Skew      string
	// Clocks are the hosts' offsets the import estimated (or why it kept
	// them at zero), in words.
	Clocks []string
}

// ImportedRow is one step of a saved import; Observed is empty where the
// logs say nothing of the resource.
type ImportedRow struct {
	Index                                    int
	Actor, Event, Source, Expected, Observed string
	Agree                                    bool
	Inferred                                 string // why the import inferred the step, or "" for a logged one
}

func (r ImportedRow) rowClass() string {
	switch {
	case r.Observed == "":
		return "observed-idle"
	case r.Agree:
		return "observed-agrees"
	}
	return "observed-diverges"
}

func joinNames(names []string) string { return strings.Join(names, ", ") }
