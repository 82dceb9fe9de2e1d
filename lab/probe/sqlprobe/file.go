// Package sqlprobe is a receiver for the probe made of the statements a
// service runs against its database: a file of named blocks (reset,
// write, read, check, grant, restart) played at PostgreSQL, MySQL,
// MariaDB or SQLite through database/sql. The drivers are registered by
// the program (cmd/fencelab) and by tests, never here.
package sqlprobe

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// File is a parsed statement file.
type File struct {
	Name   string
	Text   string
	Blocks map[string]*Block
	// Isolation is the file's isolation line ("" when it has none):
	// the check block's, else the write block's.
	Isolation string
	// issuer: a lease table's file (ParseIssuer), with its own blocks.
	issuer bool
}

// The blocks of an issuer's file (probe --issuer-sql), with their
// parameters.
var issuerParams = map[string][]string{
	"reset":   {},
	"acquire": {"lock", "owner", "ttl_ms", "now_ms"},
	"renew":   {"lock", "owner", "token", "ttl_ms", "now_ms"},
	"release": {"lock", "owner", "token", "now_ms"},
}

var issuerOrder = []string{"reset", "acquire", "renew", "release"}

func (f *File) params() (map[string][]string, []string) {
	if f.issuer {
		return issuerParams, issuerOrder
	}
	return blockParams, blockOrder
}

// ParseIssuer reads a lease table's statement file: blocks acquire
// (returning token), renew and release, and an optional reset; the same
// rules as Parse otherwise.
func ParseIssuer(name string, r io.Reader) (*File, error) {
	return parse(name, r, true)
}

// Block is one named block of statements.
type Block struct {
	Name       string
	Line       int // the line of its -- name: comment
	Isolation  string
	Statements []Statement
}

// The blocks a file may hold, with the parameters each may use.
var blockParams = map[string][]string{
	"reset":   {},
	"write":   {"resource", "value", "token", "scope", "op", "id", "expect_version"},
	"check":   {"resource", "value", "token", "scope", "op", "id", "expect_version"},
	"read":    {"resource"},
	"grant":   {"scope", "token"},
	"restart": {"resource"},
}

// maxFile is the largest statement file Parse reads.
const maxFile = 1 << 20

// blockOrder is the order blocks are listed in messages.
var blockOrder = []string{"reset", "write", "read", "check", "grant", "restart"}

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

// Parse reads a statement file and checks it before anything runs: every
// required block present, no unknown block or parameter, a read that
// returns value and token, a check that returns token.
func Parse(name string, r io.Reader) (*File, error) {
	return parse(name, r, false)
}

func parse(name string, r io.Reader, issuer bool) (*File, error) {
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
	f := &File{Name: name, Text: string(b), Blocks: map[string]*Block{}, issuer: issuer}
	if err := f.blocks(); err != nil {
		return nil, err
	}
	return f, f.check()
}

// blocks cuts the text at its -- name: lines.
func (f *File) blocks() error {
	var cur *Block
	var body strings.Builder
	bodyLine := 0
	var unclosed error
	flush := func() {
		if cur != nil && unclosed == nil {
			var open int
			cur.Statements, open = split(body.String(), bodyLine)
			if open > 0 {
				unclosed = &FileError{f.Name, open, fmt.Sprintf("block %s: a quote or comment opened here is never closed", cur.Name)}
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
			if err := f.open(val, n); err != nil {
				return err
			}
			cur, bodyLine = f.Blocks[val], n+1
			continue
		case ok && key == "isolation" && cur != nil:
			if err := cur.setIsolation(f.Name, val, n, f.issuer); err != nil {
				return err
			}
		case ok && key == "isolation":
			return &FileError{f.Name, n, "an isolation line belongs inside a block (after -- name: check or -- name: write)"}
		case cur == nil && strings.TrimSpace(stripComments(line)) != "":
			return &FileError{f.Name, n, "a statement before the first -- name: line; every statement belongs to a named block"}
		}
		body.WriteString(line + "\n")
	}
	flush()
	return unclosed
}

// directive reads "-- name: X" or "-- isolation: Y" (any case, any space).
func directive(line string) (key, val string, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(line), "--")
	if !found {
		return "", "", false
	}
	k, v, found := strings.Cut(rest, ":")
	k = strings.ToLower(strings.TrimSpace(k))
	if !found || (k != "name" && k != "isolation") {
		return "", "", false
	}
	return k, strings.ToLower(strings.Join(strings.Fields(v), " ")), true
}

func (f *File) open(name string, line int) error {
	params, order := f.params()
	if _, ok := params[name]; !ok {
		return &FileError{f.Name, line, fmt.Sprintf("unknown block %q: use %s", name, strings.Join(order, ", "))}
	}
	if b := f.Blocks[name]; b != nil {
		return &FileError{f.Name, line, fmt.Sprintf("a second block %q (the first is at line %d)", name, b.Line)}
	}
	f.Blocks[name] = &Block{Name: name, Line: line}
	return nil
}

func (b *Block) setIsolation(file, val string, line int, issuer bool) error {
	if !slices.Contains(isolations, val) {
		return &FileError{file, line, fmt.Sprintf("isolation %q: use read committed, repeatable read or serializable", val)}
	}
	if issuer && b.Name != "acquire" {
		return &FileError{file, line, fmt.Sprintf("an isolation line in block %s: only acquire takes one, and every block runs at its level", b.Name)}
	}
	if !issuer && b.Name != "check" && b.Name != "write" {
		return &FileError{file, line, fmt.Sprintf("an isolation line in block %s: only check and write take one", b.Name)}
	}
	b.Isolation = val
	return nil
}

// check finds what Parse promises to find before anything runs.
func (f *File) check() error {
	if f.issuer {
		return f.checkIssuer()
	}
	for _, name := range []string{"reset", "write", "read"} {
		if f.Blocks[name] == nil {
			return &FileError{f.Name, 0, fmt.Sprintf("no %q block: a statement file needs -- name: reset, write and read", name)}
		}
	}
	for _, name := range blockOrder {
		if err := f.checkBlock(f.Blocks[name]); err != nil {
			return err
		}
	}
	return f.isolation()
}

func (f *File) checkBlock(b *Block) error {
	if b == nil {
		return nil
	}
	if len(b.Statements) == 0 {
		return &FileError{f.Name, b.Line, fmt.Sprintf("block %s has no statement", b.Name)}
	}
	for _, st := range b.Statements {
		if w := st.first(); slices.Contains(txControl, w) {
			return &FileError{f.Name, st.Line, fmt.Sprintf("block %s: %s; the probe runs each block as one transaction of its own, so leave transaction control out (an isolation line sets the level)", b.Name, strings.ToUpper(w))}
		}
		params, _ := f.params()
		for _, p := range st.Params() {
			if !slices.Contains(params[b.Name], p) {
				return &FileError{f.Name, st.Line, fmt.Sprintf("block %s: unknown parameter :%s; it takes %s", b.Name, p, paramList(params[b.Name]))}
			}
		}
	}
	last := b.Statements[len(b.Statements)-1]
	switch {
	case b.Name == "read" && !(last.ReturnsRows() && last.names("value", "token")):
		return &FileError{f.Name, last.Line, "block read: its last statement must be a SELECT returning columns value and token (SELECT value, token FROM … WHERE name = :resource)"}
	case b.Name == "check" && !(last.ReturnsRows() && (last.names("token") || last.names("version"))):
		return &FileError{f.Name, last.Line, "block check: its last statement must be a SELECT returning a column token, the highest token the receiver remembers (under cas: version, the resource's version)"}
	}
	return nil
}

func paramList(ps []string) string {
	if len(ps) == 0 {
		return "none"
	}
	return ":" + strings.Join(ps, ", :")
}

// isolation picks the file's level: check's, else write's; two different
// lines are a mistake.
func (f *File) isolation() error {
	w := f.Blocks["write"]
	c := f.Blocks["check"]
	f.Isolation = w.Isolation
	if c != nil && c.Isolation != "" {
		if w.Isolation != "" && w.Isolation != c.Isolation {
			return &FileError{f.Name, c.Line, fmt.Sprintf("block check says isolation %s, block write (line %d) %s: check and write run in one transaction, give one level", c.Isolation, w.Line, w.Isolation)}
		}
		f.Isolation = c.Isolation
	}
	return nil
}

// checkIssuer: acquire, renew and release present, an acquire whose last
// statement returns a column token, no isolation line outside them.
func (f *File) checkIssuer() error {
	for _, name := range []string{"acquire", "renew", "release"} {
		if f.Blocks[name] == nil {
			return &FileError{f.Name, 0, fmt.Sprintf("no %q block: an issuer's file needs -- name: acquire, renew and release (reset is optional)", name)}
		}
	}
	for _, name := range issuerOrder {
		if err := f.checkBlock(f.Blocks[name]); err != nil {
			return err
		}
	}
	a := f.Blocks["acquire"]
	f.Isolation = a.Isolation
	if last := a.Statements[len(a.Statements)-1]; !(last.ReturnsRows() && last.names("token")) {
		return &FileError{f.Name, last.Line, "block acquire: its last statement must return a column token (… RETURNING n AS token, or SELECT n AS token FROM … WHERE name = :lock AND owner = :owner)"}
	}
	return nil
}
