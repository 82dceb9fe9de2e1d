package sqlprobe

import (
	"strings"
	"unicode"
)

// Statement is one statement of a block, split at a semicolon outside
// quotes and comments, with its parameters found.
type Statement struct {
	Line int    // the line of its first character in the file
	Text string // as written, for messages
	// parts alternate text and parameter names: parts[0] is text,
	// parts[1] a name, parts[2] text, and so on.
	parts []string
	words []word // identifiers outside quotes, comments and parameters
}

// word is an identifier or keyword with its depth in parentheses.
type word struct {
	text  string // lower case; a quoted identifier without its quotes
	depth int
}

// Params lists the statement's parameter names in order, repeats kept.
func (s Statement) Params() []string {
	var out []string
	for i := 1; i < len(s.parts); i += 2 {
		out = append(out, s.parts[i])
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
		lx.param()
	case isIdent(rune(c)):
		lx.ident()
	default:
		lx.paren(c)
		lx.text.WriteByte(c)
		lx.i++
	}
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

func (lx *lexer) param() {
	j := lx.i + 1
	for j < len(lx.src) && isIdent(rune(lx.src[j])) {
		j++
	}
	lx.cur.parts = append(lx.cur.parts, lx.text.String(), lx.src[lx.i+1:j])
	lx.text.Reset()
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
	lx.cur, lx.depth = Statement{}, 0
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
