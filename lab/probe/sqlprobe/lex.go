package sqlprobe

import (
	"strconv"
	"strings"
	"unicode"
)

// Statement is one statement of a query, split at a semicolon outside
// quotes and comments, with its placeholders found.
type Statement struct {
	Line  int    // the line of its first character in the file
	Text  string // as written, for messages
	Query string // the query it belongs to, as the file writes it
	Index int    // 1 + its place in its query
	// parts alternate text and placeholders: parts[0] is text, parts[1]
	// a placeholder, parts[2] text, and so on.
	parts []string
	phs   []*ph    // the placeholder of each odd part
	words []word   // identifiers outside quotes, comments and parameters
	plan  *plan    // how it runs on the engine, once the file is bound
	cols  colNames // its columns' renames
	uses  map[string]bool
	rows  bool // ReturnsRows, once bound
}

// ph is a placeholder candidate as written: :name, @name, sqlc.arg(name),
// $n or ?. Whether it is one depends on the engine and the map.
type ph struct {
	kind    byte   // ':', '@', '$' or '?'
	name    string // the name, the digits of $n or ?NNN, or the count of a bare ?
	written string
	line    int
	prev    string // the token before it (for ?)
	sqlc    bool   // sqlc.arg, sqlc.narg or sqlc.slice
	double  bool   // ??
}

// key is the placeholder's key in the parameter map.
func (p *ph) key() string {
	if p.kind == '?' {
		return "?" + p.name
	}
	return string(p.kind) + p.name
}

// word is an identifier or keyword with its depth in parentheses.
type word struct {
	text  string // lower case; a quoted identifier without its quotes
	depth int
}

// Params lists the statement's placeholders as written, in order,
// repeats kept; a v1 :name without its colon.
func (s Statement) Params() []string {
	var out []string
	for _, p := range s.phs {
		if p.kind == ':' {
			out = append(out, p.name)
		} else {
			out = append(out, p.written)
		}
	}
	return out
}

// lexer splits a block's text into statements.
type lexer struct {
	src   string
	line  int // the line src starts at
	open  int // the line of a quote or comment never closed; 0: none
	i     int
	out   []Statement
	cur   Statement
	text  strings.Builder // the current text part
	start int             // where the current statement began in src
	depth int
	prev  string // the latest token outside quotes and comments
	marks int    // bare ? so far in the query
}

// split cuts src, which starts at line, into statements at semicolons
// outside quotes and comments. Empty statements are dropped. unclosed is
// the line of a quote or block comment that never ends, or 0.
func split(src string, line int) (stmts []Statement, unclosed int) {
	lx := &lexer{src: src, line: line}
	for lx.i < len(src) {
		lx.step()
	}
	lx.finish(len(src))
	return lx.out, lx.open
}

// unclosed notes a quote or comment opened at i that never ends.
func (lx *lexer) unclosed(i int) {
	if lx.open == 0 {
		lx.open = lx.line + strings.Count(lx.src[:i], "\n")
	}
}

func (lx *lexer) step() {
	c, rest := lx.src[lx.i], lx.src[lx.i:]
	switch {
	case strings.HasPrefix(rest, "--"):
		lx.copyUntil("\n", false)
	case strings.HasPrefix(rest, "/*"):
		lx.copyUntil("*/", true)
	case c == '\'' || c == '"' || c == '`':
		lx.quoted(c)
	case c == '$' && dollarTag(rest) != "":
		lx.copyUntilAfter(dollarTag(rest))
	case c == ';':
		lx.finish(lx.i)
		lx.i++
		lx.start = lx.i
	case c == ':' && lx.isParam():
		lx.param(':', 1)
	case c == '@' && lx.isAt():
		lx.param('@', 1)
	case c == '$' && lx.isDollar():
		lx.param('$', 1)
	case c == '?':
		lx.question()
	case isIdent(rune(c)) && lx.sqlc():
	case isIdent(rune(c)):
		lx.ident()
	default:
		lx.paren(c)
		lx.text.WriteByte(c)
		lx.punct(c)
		lx.i++
	}
}

// punct notes an operator or punctuation as the latest token; <=, >=,
// <> and != stay one.
func (lx *lexer) punct(c byte) {
	switch {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r':
	case strings.IndexByte("=<>!", c) >= 0 && lx.i > 0 && strings.IndexByte("<>!", lx.src[lx.i-1]) >= 0 && len(lx.prev) == 1:
		lx.prev += string(c)
	default:
		lx.prev = string(c)
	}
}

// lineAt is the file line of src[i].
func (lx *lexer) lineAt(i int) int { return lx.line + strings.Count(lx.src[:i], "\n") }

// isAt: @name, not @@name nor a@name.
func (lx *lexer) isAt() bool {
	if lx.i > 0 && (lx.src[lx.i-1] == '@' || isIdent(rune(lx.src[lx.i-1]))) {
		return false
	}
	if lx.i+1 >= len(lx.src) {
		return false
	}
	n := rune(lx.src[lx.i+1])
	return n == '_' || unicode.IsLetter(n)
}

// isDollar: $1, not a$1.
func (lx *lexer) isDollar() bool {
	if lx.i > 0 && isIdent(rune(lx.src[lx.i-1])) {
		return false
	}
	return lx.i+1 < len(lx.src) && lx.src[lx.i+1] >= '0' && lx.src[lx.i+1] <= '9'
}

// question reads ?, ?NNN or ??; ?| and ?& are PostgreSQL's operators.
func (lx *lexer) question() {
	rest := lx.src[lx.i:]
	switch {
	case strings.HasPrefix(rest, "?|"), strings.HasPrefix(rest, "?&"):
		lx.text.WriteString(rest[:2])
		lx.prev = rest[:2]
		lx.i += 2
		return
	case strings.HasPrefix(rest, "??"):
		lx.add(&ph{kind: '?', written: "??", line: lx.lineAt(lx.i), prev: lx.prev, double: true})
		lx.i += 2
		return
	}
	j := lx.i + 1
	for j < len(lx.src) && lx.src[j] >= '0' && lx.src[j] <= '9' {
		j++
	}
	p := &ph{kind: '?', name: lx.src[lx.i+1 : j], written: lx.src[lx.i:j], line: lx.lineAt(lx.i), prev: lx.prev}
	if p.name == "" {
		lx.marks++
		p.name = strconv.Itoa(lx.marks)
	}
	lx.add(p)
	lx.i = j
}

func (lx *lexer) add(p *ph) {
	lx.cur.parts = append(lx.cur.parts, lx.text.String(), p.written)
	lx.cur.phs = append(lx.cur.phs, p)
	lx.text.Reset()
	lx.prev = "param"
}

// sqlc reads sqlc.arg(name), sqlc.narg(name) and sqlc.slice(name) (the
// name quoted or not) as the placeholder @name, and sqlc.embed(t) as t.*.
func (lx *lexer) sqlc() bool {
	rest := lx.src[lx.i:]
	if len(rest) < 5 || !strings.EqualFold(rest[:5], "sqlc.") || (lx.i > 0 && isIdent(rune(lx.src[lx.i-1]))) {
		return false
	}
	open := strings.IndexByte(rest, '(')
	if open < 0 {
		return false
	}
	fn := strings.ToLower(rest[5:open])
	if fn != "arg" && fn != "narg" && fn != "slice" && fn != "embed" {
		return false
	}
	end := strings.IndexByte(rest[open:], ')')
	if end < 0 {
		return false
	}
	name := strings.TrimSpace(rest[open+1 : open+end])
	name = strings.Trim(name, "'\"`")
	if name == "" || strings.IndexFunc(name, func(r rune) bool { return !isIdent(r) }) >= 0 {
		return false
	}
	written := rest[:open+end+1]
	if fn == "embed" {
		lx.text.WriteString(name + ".*")
		lx.prev = "*"
	} else {
		lx.add(&ph{kind: '@', name: name, written: written, line: lx.lineAt(lx.i), sqlc: true})
	}
	lx.i += open + end + 1
	return true
}

func (lx *lexer) paren(c byte) {
	switch c {
	case '(':
		lx.depth++
	case ')':
		lx.depth--
	}
}

// isParam: a colon before a name, not after another colon (a ::cast).
func (lx *lexer) isParam() bool {
	if lx.i > 0 && lx.src[lx.i-1] == ':' {
		return false
	}
	if lx.i+1 >= len(lx.src) {
		return false
	}
	n := rune(lx.src[lx.i+1])
	return n == '_' || unicode.IsLetter(n)
}

func (lx *lexer) param(kind byte, skip int) {
	j := lx.i + skip
	for j < len(lx.src) && isIdent(rune(lx.src[j])) {
		j++
	}
	lx.add(&ph{kind: kind, name: lx.src[lx.i+skip : j], written: lx.src[lx.i:j], line: lx.lineAt(lx.i)})
	lx.i = j
}

func (lx *lexer) ident() {
	j := lx.i
	for j < len(lx.src) && isIdent(rune(lx.src[j])) {
		j++
	}
	w := lx.src[lx.i:j]
	lx.cur.words = append(lx.cur.words, word{strings.ToLower(w), lx.depth})
	lx.text.WriteString(w)
	lx.prev = strings.ToLower(w)
	lx.i = j
}

// quoted copies a quoted string or identifier; a doubled quote stays in.
func (lx *lexer) quoted(q byte) {
	j := lx.i + 1
	for j < len(lx.src) {
		if lx.src[j] == q && (j+1 >= len(lx.src) || lx.src[j+1] != q) {
			break
		}
		if lx.src[j] == q {
			j++
		}
		j++
	}
	end := min(j+1, len(lx.src))
	if j >= len(lx.src) {
		lx.unclosed(lx.i)
	}
	if q != '\'' {
		lx.cur.words = append(lx.cur.words, word{strings.ToLower(lx.src[lx.i+1 : j]), lx.depth})
	}
	lx.text.WriteString(lx.src[lx.i:end])
	lx.prev = string(q)
	lx.i = end
}

// copyUntil copies a comment up to its end marker (kept when keep).
func (lx *lexer) copyUntil(end string, keep bool) {
	j := strings.Index(lx.src[lx.i+2:], end)
	stop := len(lx.src)
	if j < 0 && keep {
		lx.unclosed(lx.i)
	}
	if j >= 0 {
		stop = lx.i + 2 + j
		if keep {
			stop += len(end)
		}
	}
	lx.text.WriteString(lx.src[lx.i:stop])
	lx.i = stop
}

// copyUntilAfter copies a PostgreSQL dollar-quoted string.
func (lx *lexer) copyUntilAfter(tag string) {
	j := strings.Index(lx.src[lx.i+len(tag):], tag)
	stop := len(lx.src)
	if j < 0 {
		lx.unclosed(lx.i)
	}
	if j >= 0 {
		stop = lx.i + len(tag) + j + len(tag)
	}
	lx.text.WriteString(lx.src[lx.i:stop])
	lx.i = stop
}

// finish ends the current statement at end.
func (lx *lexer) finish(end int) {
	lx.cur.parts = append(lx.cur.parts, lx.text.String())
	lx.text.Reset()
	raw := lx.src[lx.start:end]
	body := stripComments(raw)
	if strings.TrimSpace(body) != "" {
		lx.cur.Line = lx.line + strings.Count(lx.src[:lx.start+leading(raw)], "\n")
		lx.cur.Text = strings.TrimSpace(body)
		lx.out = append(lx.out, lx.cur)
	}
	lx.cur, lx.depth, lx.prev = Statement{}, 0, ""
}

// leading is the length of the blank and comment-only lines that open s.
func leading(s string) int {
	n := 0
	for l := range strings.Lines(s) {
		t := strings.TrimSpace(l)
		if t != "" && !strings.HasPrefix(t, "--") {
			return n + len(l) - len(strings.TrimLeft(l, " \t"))
		}
		n += len(l)
	}
	return n
}

// stripComments drops whole lines that are only a -- comment, for
// messages and for telling an empty statement.
func stripComments(s string) string {
	var keep []string
	for l := range strings.Lines(s) {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			keep = append(keep, strings.TrimRight(l, "\r\n"))
		}
	}
	return strings.Join(keep, "\n")
}

// dollarTag returns the $tag$ that opens a dollar-quoted string at the
// start of s, or "".
func dollarTag(s string) string {
	for j := 1; j < len(s); j++ {
		switch c := rune(s[j]); {
		case c == '$':
			return s[:j+1]
		case !isIdent(c) || (j == 1 && unicode.IsDigit(c)):
			return ""
		}
	}
	return ""
}

func isIdent(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// ReturnsRows guesses, from its words, whether a statement returns rows:
// a SELECT (VALUES, TABLE, SHOW), a RETURNING clause, or a WITH whose
// main statement is a SELECT.
func (s Statement) ReturnsRows() bool {
	top := []string{}
	for _, w := range s.words {
		if w.depth == 0 {
			top = append(top, w.text)
		}
	}
	if len(top) == 0 {
		return false
	}
	switch top[0] {
	case "select", "values", "table", "show", "explain", "pragma":
		return true
	}
	for _, w := range top {
		if w == "returning" {
			return true
		}
	}
	if top[0] == "with" {
		for _, w := range top[1:] {
			switch w {
			case "select":
				return true
			case "insert", "update", "delete", "merge", "replace":
				return false
			}
		}
	}
	return false
}

// names reports whether the statement names each word outside quotes of
// strings and comments (as a column or alias, say).
func (s Statement) names(ws ...string) bool {
	for _, want := range ws {
		found := false
		for _, w := range s.words {
			found = found || w.text == want
		}
		if !found {
			return false
		}
	}
	return true
}

// first is the statement's first word, lower case.
func (s Statement) first() string {
	if len(s.words) == 0 {
		return ""
	}
	return s.words[0].text
}
