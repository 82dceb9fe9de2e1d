package views

import "fencelab/lab"

// Observed is what `fencelab probe` saw a real receiver do, beside what
// the model expects, as a saved run shows it.
type Observed struct {
	Target     string // the receiver's address, as the probe named it; never contacted
	Policy     lab.Policy
	Remember   string
	Mode       string
	Verdict    string // agree, disagree, not testable
	Divergence string
	Overrides  []string
	Orderings  string // for the every-ordering mode, a sentence
	Rows       []ObservedRow
	// SQL is the statement file a SQL probe ran, shown beside the
	// table; nil for an HTTP receiver and for probes saved before it.
	SQL *ObservedSQL
}

// ObservedSQL is a statement file with its engine, line by line so that a
// postmortem can point at a line.
type ObservedSQL struct {
	Name      string
	Engine    string // postgres, mysql or sqlite
	Isolation string // empty: the database's default
	Lines     []string
	// Queries are the file's queries: name, line, roles, placeholders.
	Queries []ObservedQuery
	// Roles, Params and Columns are the role map, the parameter map and
	// the column items, as bound ("write=InsertSQL", "InsertSQL: ?1=resource").
	Roles, Params, Columns []string
}

// ObservedQuery is one query of a statement file.
type ObservedQuery struct {
	Name         string
	Line         int
	Roles        string // "check, read"; empty: it plays none
	Placeholders string // "?1 ?2 @id", as the file writes them
}

func (q *ObservedSQL) engineWords() string {
	switch q.Engine {
	case "postgres":
		return "PostgreSQL"
	case "mysql":
		return "MySQL/MariaDB"
	case "sqlite":
		return "SQLite (every transaction BEGIN IMMEDIATE)"
	}
	return q.Engine
}

func (o *Observed) layoutClass() string {
	if o.SQL != nil {
		return "observed-with-sql"
	}
	return "observed-alone"
}

// ObservedRow is one step: the receiver's columns are empty where it took
// no part.
type ObservedRow struct {
	Index              int
	Actor, Event       string
	Request            string
	Expected, Observed string
	Agree              bool
	First              bool // the first step that disagrees: highlighted
	Error              string
}

func (r ObservedRow) rowClass() string {
	switch {
	case r.First:
		return "observed-diverges observed-first"
	case r.Request != "" && !r.Agree:
		return "observed-diverges"
	case r.Request != "":
		return "observed-agrees"
	}
	return "observed-idle"
}

func (o *Observed) verdictClass() string {
	switch o.Verdict {
	case "agree":
		return "notice notice-ok"
	case "disagree":
		return "notice notice-bad"
	}
	return "notice notice-warn"
}

// runStyles are the style sheets of a saved run's page.
func runStyles(p RunPage) []string {
	if p.Observed != nil || p.Imported != nil {
		return []string{"css/diagram.css", "css/observed.css", "css/import.css"}
	}
	return []string{"css/diagram.css"}
}

// ModelNote says whose the verdicts below the observation are: the
// model's, of a receiver that keeps what the policy promises, which the
// receiver observed did or did not.
func (o *Observed) ModelNote() string {
	base := "What a receiver that keeps what " + string(o.Policy) + " promises gives, by the model"
	switch o.Verdict {
	case "agree":
		return base + "; the receiver above did the same."
	case "disagree":
		return base + ", not what the receiver above did: it disagrees with the model (see above)."
	}
	return base + "; the receiver above could not be tested against it."
}

// joinItems shows map items on one line, two spaces apart.
func joinItems(items []string) string {
	out := ""
	for i, it := range items {
		if i > 0 {
			out += "  "
		}
		out += it
	}
	return out
}
