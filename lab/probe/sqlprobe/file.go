// Package sqlprobe is a receiver for the probe made of the statements a
// service runs against its database: a file of named queries, each
// playing one or more roles (reset, write, read, check, grant, restart),
// played at PostgreSQL, MySQL, MariaDB or SQLite through database/sql.
// The drivers are registered by the program (cmd/fencelab) and by tests,
// never here.
package sqlprobe

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"fencelab/lab"
)

// File is a parsed statement file.
type File struct {
	Name string
	Text string
	// Queries are the file's -- name: blocks in the file's order.
	Queries []*Query
	// Blocks are the roles, each played by its queries' statements in
	// order; set once the file is bound.
	Blocks map[string]*Block
	// Isolation is the file's level ("" when it names none): the header's,
	// else check's, else write's.
	Isolation string
	// Notes are said before the probe runs (a placeholder that collides
	// with a fact).
	Notes []string
	// Roles and Params are the role map and the parameter map as bound,
	// for the saved page: "write=InsertSQL", "InsertSQL: ?1=resource".
	Roles  []string
	Params []string
	// Columns are the column items as bound: "range_id=token".
	Columns []string

	header      []item // the -- fencelab: items, in order
	outcomeRows bool
	decide      string
	refused     []string
	cfg         Config
	noted       map[string]bool // the placeholders a note was said for, by query
	issuer      bool            // a lease table's file (ParseIssuer), with its own blocks
}

// Query is one -- name: block.
type Query struct {
	Name       string // as written
	Line       int    // the line of its -- name: comment
	Annotation string // sqlc's command (":exec"), or ""
	Isolation  string
	isoLine    int
	refused    []string
	refLine    int
	Statements []Statement
	roles      []string
}

// Block is a role, played by one or more queries as one block.
type Block struct {
	Name       string // the role
	Line       int    // the first query's -- name: line
	Queries    []*Query
	Statements []Statement
}

// Config says how to bind a file: the engine of --db (checks that depend
// on it are skipped while it is unknown), the policy, and the items of
// --role and --param.
type Config struct {
	Engine Engine
	Policy lab.Policy
	Items  []FlagItem
}

// FlagItem is one --role or --param item of the command line.
type FlagItem struct {
	Flag string // "--role" or "--param"
	Text string
}

// The roles, in the order messages list them.
var roleOrder = []string{"reset", "write", "read", "check", "grant", "restart"}

// roleFacts are the facts each role may bind.
var roleFacts = map[string][]string{
	"reset":   {"resource", "scope"},
	"write":   {"resource", "value", "token", "scope", "op", "id", "expect_version", "writer"},
	"check":   {"resource", "value", "token", "scope", "op", "id", "expect_version", "writer"},
	"read":    {"resource"},
	"grant":   {"resource", "scope", "token", "writer"},
	"restart": {"resource"},
}

// facts are every fact; version is expect_version's alias.
var facts = []string{"resource", "value", "token", "scope", "op", "id", "expect_version", "version", "writer"}

// columnFacts are what a column item may rename a column to.
var columnFacts = []string{"value", "token", "version", "outcome", "reason"}

// annotations are sqlc's query commands, which the probe ignores.
var annotations = []string{":exec", ":execrows", ":execresult", ":execlastid", ":one", ":many",
	":batchexec", ":batchmany", ":batchone", ":copyfrom"}

// maxFile is the largest statement file Parse reads.
const maxFile = 1 << 20

// isolations are the levels an isolation line may name.
var isolations = []string{"read committed", "repeatable read", "serializable"}

// txControl are the statements that would end or split the probe's
// transaction.
var txControl = []string{"begin", "commit", "rollback", "start", "savepoint", "release", "end", "abort"}

// FileError is a mistake in a statement file, at a line.
type FileError struct {
	Name string
	Line int
	Msg  string
}

func (e *FileError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.Name, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.Name, e.Line, e.Msg)
}

// Parse reads a statement file and checks it as far as it can without
// knowing the engine; Bind (which Open calls) checks the rest.
func Parse(name string, r io.Reader) (*File, error) {
	return ParseWith(name, r, Config{})
}

// ParseWith reads a statement file and checks it for cfg: with the engine
// known, every mistake is found before anything runs.
func ParseWith(name string, r io.Reader, cfg Config) (*File, error) {
	f, err := read(name, r, false)
	if err != nil {
		return nil, err
	}
	return f, f.Bind(cfg)
}

// read reads a statement file and cuts it into its queries.
func read(name string, r io.Reader, issuer bool) (*File, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxFile+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(b) > maxFile {
		return nil, &FileError{name, 0, "larger than 1 MiB: a statement file holds a few blocks"}
	}
	if !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
		return nil, &FileError{name, 0, "not a text file (invalid UTF-8 or a NUL byte)"}
	}
	f := &File{Name: name, Text: string(b), issuer: issuer}
	if err := f.blocks(); err != nil {
		return nil, err
	}
	return f, nil
}

// query finds a query by name, without regard to case.
func (f *File) query(name string) *Query {
	for _, q := range f.Queries {
		if strings.EqualFold(q.Name, name) {
			return q
		}
	}
	return nil
}

// blocks cuts the text at its -- name: lines and reads the header.
func (f *File) blocks() error {
	var cur *Query
	var body strings.Builder
	bodyLine := 0
	var unclosed error
	flush := func() {
		if cur != nil && unclosed == nil {
			var open int
			cur.Statements, open = split(body.String(), bodyLine)
			for i := range cur.Statements {
				cur.Statements[i].Query, cur.Statements[i].Index = cur.Name, i+1
			}
			if open > 0 {
				unclosed = &FileError{f.Name, open, fmt.Sprintf("query %s: a quote or comment opened here is never closed", cur.Name)}
			}
		}
		body.Reset()
	}
	sc := bufio.NewScanner(strings.NewReader(f.Text))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		key, val, ok := directive(line)
		switch {
		case ok && key == "name":
			if flush(); unclosed != nil {
				return unclosed
			}
			q, err := f.open(val, n)
			if err != nil {
				return err
			}
			cur, bodyLine = q, n+1
			continue
		case ok && f.issuer && (key == "fencelab" || key == "refused-on"):
			return &FileError{f.Name, n, fmt.Sprintf("a -- %s: line: an issuer's file has fixed blocks "+
				"(reset, acquire, renew, release) and takes no role map, parameter map or refusals", key)}
		case ok && f.issuer && key == "isolation" && cur == nil:
			return &FileError{f.Name, n, "an isolation line belongs inside block acquire (after -- name: acquire)"}
		case ok && key == "fencelab" && cur != nil:
			return &FileError{f.Name, n, "a -- fencelab: line after the first -- name: line; header lines go before the first query"}
		case ok && key == "fencelab":
			items, err := headerItems(val)
			if err != nil {
				return &FileError{f.Name, n, err.Error()}
			}
			for i := range items {
				items[i].line = n
			}
			f.header = append(f.header, items...)
			continue
		case ok && key == "isolation" && cur != nil:
			v := strings.ToLower(strings.Join(strings.Fields(val), " "))
			if !slices.Contains(isolations, v) {
				return &FileError{f.Name, n, fmt.Sprintf("isolation %q: use read committed, repeatable read or serializable", v)}
			}
			cur.Isolation, cur.isoLine = v, n
		case ok && key == "isolation":
			return &FileError{f.Name, n, "an isolation line belongs inside a block (after -- name: check or " +
				"-- name: write), or isolation= in a -- fencelab: line"}
		case ok && key == "refused-on" && cur != nil:
			codes, err := refusedCodes(strings.ReplaceAll(val, " ", ""))
			if err != nil {
				return &FileError{f.Name, n, err.Error()}
			}
			cur.refused, cur.refLine = append(cur.refused, codes...), n
		case ok && key == "refused-on":
			return &FileError{f.Name, n, "a refused-on line belongs inside a query of check or write, or refused-on= in a -- fencelab: line"}
		case cur == nil && strings.TrimSpace(stripComments(line)) != "":
			return &FileError{f.Name, n, "a statement before the first -- name: line; every statement belongs to a named block"}
		}
		body.WriteString(line + "\n")
	}
	flush()
	return unclosed
}

// directive reads "-- name: X", "-- fencelab: …", "-- isolation: Y" or
// "-- refused-on: CODES" (the word in any case, blanks around it).
func directive(line string) (key, val string, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(line), "--")
	if !found {
		return "", "", false
	}
	k, v, found := strings.Cut(rest, ":")
	k = strings.ToLower(strings.TrimSpace(k))
	if !found || (k != "name" && k != "isolation" && k != "fencelab" && k != "refused-on") {
		return "", "", false
	}
	return k, strings.TrimSpace(v), true
}

// open starts a query at its -- name: line, with sqlc's annotation if any.
func (f *File) open(val string, line int) (*Query, error) {
	fields := strings.Fields(val)
	if len(fields) == 0 {
		return nil, &FileError{f.Name, line, "a -- name: line without a name"}
	}
	q := &Query{Name: fields[0], Line: line}
	switch {
	case len(fields) == 2 && slices.Contains(annotations, strings.ToLower(fields[1])):
		q.Annotation = fields[1]
	case len(fields) > 1:
		return nil, &FileError{f.Name, line, fmt.Sprintf("query %s: %q after the name is not "+
			"one of sqlc's commands (%s)", q.Name, strings.Join(fields[1:], " "), strings.Join(annotations, " "))}
	}
	if o := f.query(q.Name); o != nil {
		return nil, &FileError{f.Name, line, fmt.Sprintf("a second query %q (the first is at line %d)", q.Name, o.Line)}
	}
	f.Queries = append(f.Queries, q)
	return q, nil
}

// queryList names the file's queries with their lines, for messages.
func (f *File) queryList() string {
	var out []string
	for _, q := range f.Queries {
		out = append(out, fmt.Sprintf("%s (line %d)", q.Name, q.Line))
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

func factList(role string) string {
	ps := roleFacts[role]
	if len(ps) == 0 {
		return "none"
	}
	return ":" + strings.Join(ps, ", :")
}
