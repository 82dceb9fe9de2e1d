package sqlprobe

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// item is one KEY=VALUE of a -- fencelab: line or of --role/--param.
type item struct {
	query string // "" for every query, else the QUERY: it speaks of
	key   string
	val   string
	line  int    // its header line; 0 for a flag
	flag  string // "--role" or "--param" for a flag's item
	kind  itemKind
	src   *source // a placeholder item's value
	used  bool
}

type itemKind int

const (
	roleItem itemKind = iota + 1
	optionItem
	paramItem
	columnItem
)

// where names an item's place for a FileError: its line, or its flag.
func (it *item) where() (line int, prefix string) {
	if it.flag != "" {
		return 0, fmt.Sprintf("%s %s: ", it.flag, it.text())
	}
	return it.line, ""
}

func (it *item) text() string {
	s := it.key + "=" + it.val
	if it.query != "" {
		s = it.query + ": " + s
	}
	return s
}

// headerItems splits a -- fencelab: line's text into items: white space
// separates them outside quotes and parentheses; a first item QUERY:
// scopes the rest to that query.
func headerItems(text string) ([]item, error) {
	words, err := fields(text)
	if err != nil {
		return nil, err
	}
	var out []item
	scope := ""
	for i, w := range words {
		if i == 0 && strings.HasSuffix(w, ":") && !strings.Contains(w, "=") && !strings.ContainsAny(w[:1], ":@$?") {
			scope = strings.TrimSuffix(w, ":")
			continue
		}
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("%q is not an item: write KEY=VALUE (write=QUERY, $1=token, range_id=token, refused-on=23505)", w)
		}
		out = append(out, item{query: scope, key: k, val: v})
	}
	if scope != "" && len(out) == 0 {
		return nil, fmt.Errorf("%s: names a query but gives no item for it", scope)
	}
	return out, nil
}

// fields splits at white space outside quotes and parentheses; an
// (EXPRESSION) runs to its matching ), skipping quoted text.
func fields(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(s) && (s[j] != c || (j+1 < len(s) && s[j+1] == c)) {
				if s[j] == c {
					j++
				}
				j++
			}
			if j >= len(s) {
				return nil, errors.New("a quote opened in this line is never closed")
			}
			cur.WriteString(s[i : j+1])
			i = j
			continue
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth < 0 {
				return nil, errors.New("a ) that closes no (")
			}
		case (c == ' ' || c == '\t') && depth == 0:
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteByte(c)
	}
	if depth > 0 {
		return nil, errors.New("a ( opened in this line is never closed")
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out, nil
}

var options = []string{"isolation", "refused-on", "outcome", "decide"}

var placeholderKey = regexp.MustCompile(`^(:[A-Za-z_][A-Za-z0-9_]*|@[A-Za-z_][A-Za-z0-9_]*|\$[0-9]+|\?[0-9]+)$`)

var columnName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// classify tells an item's kind and reads a placeholder item's value.
func (it *item) classify() error {
	lk := strings.ToLower(it.key)
	switch {
	case slices.Contains(roleOrder, lk):
		it.kind, it.key = roleItem, lk
	case slices.Contains(options, lk):
		it.kind, it.key = optionItem, lk
	case placeholderKey.MatchString(it.key):
		it.kind = paramItem
		src, err := value(it.val, it.line)
		if err != nil {
			return fmt.Errorf("%s=%s: %v", it.key, it.val, err)
		}
		src.key = it.key
		it.src = src
		return nil
	case columnName.MatchString(it.key) && slices.Contains(columnFacts, strings.ToLower(it.val)):
		it.kind, it.key, it.val = columnItem, lk, strings.ToLower(it.val)
	default:
		return fmt.Errorf("%s=%s: %s is none of a role (%s), an option (%s), a placeholder (:name, @name, $n, ?k) or a column renamed to %s",
			it.key, it.val, it.key, strings.Join(roleOrder, ", "), strings.Join(options, ", "), strings.Join(columnFacts, ", "))
	}
	if it.query != "" && it.kind != columnItem {
		//lint:ignore ST1005 the sentence ends on the spelling it asks for, "QUERY:"
		return fmt.Errorf("%s=%s after %s: a role or an option speaks of the whole file; give it without QUERY:", it.key, it.val, it.query)
	}
	return nil
}

// source is what a placeholder binds: a fact, a literal or an expression.
type source struct {
	key  string // the placeholder as written, for messages
	fact string // a fact's name (version read as expect_version), or ""
	fi   factID // the fact's place in args
	lit  any    // a literal, when fact and expr are unset
	expr *Statement
}

// value reads a map item's value: a fact, null, true, false, an integer,
// 'text' or (EXPRESSION).
func value(v string, line int) (*source, error) {
	lv := strings.ToLower(v)
	switch {
	case slices.Contains(facts, lv):
		return factSource(factName(lv)), nil
	case lv == "null":
		return &source{}, nil
	case lv == "true", lv == "false":
		return &source{lit: lv == "true"}, nil
	case strings.HasPrefix(v, "'") && strings.HasSuffix(v, "'") && len(v) >= 2:
		return &source{lit: strings.ReplaceAll(v[1:len(v)-1], "''", "'")}, nil
	case strings.HasPrefix(v, "(") && strings.HasSuffix(v, ")"):
		sts, open := split(v, line)
		if open > 0 || len(sts) != 1 {
			return nil, errors.New("the expression must be one piece of SQL without ; and with its quotes closed")
		}
		e := sts[0]
		for _, p := range e.phs {
			if p.kind == ':' && !slices.Contains(facts, p.name) {
				return nil, fmt.Errorf("%s in the expression is not a fact of the probe (%s)", p.written, strings.Join(facts, ", "))
			}
		}
		return &source{expr: &e}, nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return &source{lit: n}, nil
	}
	return nil, fmt.Errorf("%s is not a fact (%s), a literal (null, true, false, an integer, "+
		"'text') or an (expression)", v, strings.Join(facts, ", "))
}

// factID is a fact's place in args.
type factID int

const (
	fResource factID = iota
	fValue
	fToken
	fScope
	fOp
	fID
	fExpect
	fWriter
	// An issuer's file's (ParseIssuer); token is fToken.
	fLock
	fOwner
	fTTLMs
	fNowMs
	nFacts
)

var factIDs = map[string]factID{"resource": fResource, "value": fValue, "token": fToken, "scope": fScope,
	"op": fOp, "id": fID, "expect_version": fExpect, "writer": fWriter}

// args are the facts a statement may bind, nil where a request has none.
type args [nFacts]any

func factSource(fact string) *source { return &source{fact: fact, fi: factIDs[fact]} }

func factName(f string) string {
	if f == "version" {
		return "expect_version"
	}
	return f
}

// sqliteCodes are SQLite's result codes by name, for refused-on.
var sqliteCodes = map[string]string{
	"SQLITE_CONSTRAINT":            "19",
	"SQLITE_CONSTRAINT_CHECK":      "275",
	"SQLITE_CONSTRAINT_FOREIGNKEY": "787",
	"SQLITE_CONSTRAINT_NOTNULL":    "1299",
	"SQLITE_CONSTRAINT_PRIMARYKEY": "1555",
	"SQLITE_CONSTRAINT_TRIGGER":    "1811",
	"SQLITE_CONSTRAINT_UNIQUE":     "2067",
	"SQLITE_CONSTRAINT_ROWID":      "2579",
}

var sqlstate = regexp.MustCompile(`^[0-9A-Z]{5}$`)
var errNumber = regexp.MustCompile(`^[0-9]{1,4}$`)

// refusedCodes reads CODES of refused-on: SQLSTATEs (five characters),
// MySQL or MariaDB error numbers or SQLite result codes (up to four
// digits, or a SQLite code's name).
func refusedCodes(s string) ([]string, error) {
	var out []string
	for c := range strings.SplitSeq(s, ",") {
		u := strings.ToUpper(c)
		switch {
		case sqliteCodes[u] != "":
			out = append(out, sqliteCodes[u])
		case sqlstate.MatchString(u), errNumber.MatchString(u):
			out = append(out, u)
		default:
			return nil, fmt.Errorf("refused-on code %q: give a SQLSTATE (23505), a MySQL or MariaDB error "+
				"number (1062) or a SQLite result code (2067 or SQLITE_CONSTRAINT_UNIQUE), commas between, no blanks", c)
		}
	}
	return out, nil
}
