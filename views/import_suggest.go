package views

// ImportSuggestion is the page's first look at the logs, before any
// mapping: what fencelab import --suggest prints, per file.
type ImportSuggestion struct {
	Files []SuggestFile
}

// SuggestFile is one file's look: its detected format, its lines, the
// fields that may hold each fact, and its distinct message texts.
type SuggestFile struct {
	Name, Format string
	Lines        int
	Candidates   []SuggestCandidate // in the order time, actor, token, request
	Messages     []SuggestMessage   // most frequent first
	More         int                // distinct texts not shown
	Problem      string             // why the file is no log (binary data), or ""
}

// SuggestCandidate is a fact and the fields of the file that may hold it.
type SuggestCandidate struct{ Fact, Fields string }

// SuggestMessage is a distinct message text (digits and ids made a
// pattern when Pattern), how often it appears, its first line, and the
// kind its words suggest ("" for none).
type SuggestMessage struct {
	Text    string
	Pattern bool
	Count   int
	First   string
	Kind    string
}

// LoadedMapping is a mapping file the page was given that its form
// cannot show whole (sections, kind rules, facts inside messages): the
// page keeps its JSON and imports with it until the reviewer lets it go.
type LoadedMapping struct {
	JSON  string
	Words string // what it holds, in words
}
