package views

import (
	"strings"

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

// ImportFile is one host's log, and the format detected in it.
type ImportFile struct{ Name, Text, Format string }

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
}

// ImportedRow is one step of a saved import; Observed is empty where the
// logs say nothing of the resource.
type ImportedRow struct {
	Index                                    int
	Actor, Event, Source, Expected, Observed string
	Agree                                    bool
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
