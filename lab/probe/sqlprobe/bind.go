package sqlprobe

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// plan is a statement as it runs on one engine: its text in the driver's
// placeholders and what each binds.
type plan struct {
	q     string
	binds []*source
	names []string // the file's placeholder of each bind, as written (PostgreSQL: of each $k)
	shown []string // the same with a bare ? numbered (?1, ?2), for the saved page
}

// colNames renames result columns (lower case) to facts.
type colNames map[string]string

// Bind checks the file for cfg and resolves its roles, parameters and
// columns: with cfg's engine known, every mistake is found before
// anything runs. Roles come first, then parameters, then columns and
// outcomes, each in the file's order.
func (f *File) Bind(cfg Config) error {
	f.cfg = cfg
	if f.issuer {
		return f.bindIssuer(cfg.Engine)
	}
	f.Blocks, f.Notes, f.Roles, f.Params, f.Columns = map[string]*Block{}, nil, nil, nil, nil
	f.outcomeRows, f.decide, f.refused, f.Isolation, f.noted = false, "", nil, "", map[string]bool{}
	items, err := f.items(cfg)
	if err != nil {
		return err
	}
	mapped, err := f.roles(items)
	if err != nil {
		return err
	}
	if err := f.options(items); err != nil {
		return err
	}
	for _, role := range roleOrder {
		if b := f.Blocks[role]; b != nil {
			if err := f.shape(b); err != nil {
				return err
			}
		}
	}
	if err := f.bindAll(items, cfg.Engine, mapped); err != nil {
		return err
	}
	for _, it := range items {
		if it.kind == paramItem && !it.used {
			line, pre := it.where()
			who := "no query that plays a role uses it"
			if it.query != "" {
				who = "query " + it.query + " does not use it"
			}
			return &FileError{f.Name, line, fmt.Sprintf("%sthe item %s maps a placeholder %s: a typo must not pass quietly", pre, it.text(), who)}
		}
	}
	var blocks []*Block // in the file's order of the statements that decide
	for _, role := range roleOrder {
		if b := f.Blocks[role]; b != nil {
			blocks = append(blocks, b)
		}
	}
	slices.SortStableFunc(blocks, func(a, b *Block) int {
		return a.Statements[len(a.Statements)-1].Line - b.Statements[len(b.Statements)-1].Line
	})
	for _, b := range blocks {
		if err := f.columns(b, cfg); err != nil {
			return err
		}
	}
	return f.isolation(items)
}

// items gathers the header's items and the flags', classified; a flag's
// item replaces the file's with the same key and scope.
func (f *File) items(cfg Config) ([]*item, error) {
	var out []*item
	seen := map[string]*item{}
	scopeKey := func(it *item) string { return strings.ToLower(it.query) + "\x00" + it.key }
	add := func(it *item) error {
		if err := it.classify(); err != nil {
			line, pre := it.where()
			return &FileError{f.Name, line, pre + err.Error()}
		}
		if it.query != "" && f.query(it.query) == nil {
			line, pre := it.where()
			return &FileError{f.Name, line, fmt.Sprintf("%s%s: no query of that name; the file's queries: %s", pre, it.query, f.queryList())}
		}
		k := scopeKey(it)
		if old := seen[k]; old != nil {
			if it.flag != "" && old.flag == "" {
				out[slices.Index(out, old)] = it
				seen[k] = it
				return nil
			}
			line, pre := it.where()
			return &FileError{f.Name, line, fmt.Sprintf("%s%s is given twice (the first: %s)", pre, it.key, old.text())}
		}
		seen[k] = it
		out = append(out, it)
		return nil
	}
	for i := range f.header {
		it := f.header[i] // a copy: Bind may run again
		if err := add(&it); err != nil {
			return nil, err
		}
	}
	for _, fl := range cfg.Items {
		its, err := headerItems(fl.Text)
		if err != nil {
			return nil, &FileError{f.Name, 0, fmt.Sprintf("%s %s: %v", fl.Flag, fl.Text, err)}
		}
		for i := range its {
			its[i].flag = fl.Flag
			if err := add(&its[i]); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// roles resolves the role map; mapped tells whether the file has one.
func (f *File) roles(items []*item) (mapped bool, err error) {
	byRole := map[string][]*Query{}
	for _, it := range items {
		if it.kind != roleItem {
			continue
		}
		mapped = true
		for n := range strings.SplitSeq(it.val, ",") {
			q := f.query(n)
			if q == nil {
				line, pre := it.where()
				return true, &FileError{f.Name, line, fmt.Sprintf("%srole %s names %s: no query of that "+
					"name; the file's queries: %s", pre, it.key, n, f.queryList())}
			}
			byRole[it.key] = append(byRole[it.key], q)
		}
	}
	for _, q := range f.Queries {
		q.roles = nil
	}
	for _, role := range roleOrder {
		qs, ok := byRole[role]
		if !ok {
			if q := f.query(role); q != nil {
				qs = []*Query{q}
			}
		}
		if len(qs) == 0 {
			continue
		}
		b := &Block{Name: role, Line: qs[0].Line, Queries: qs}
		for _, q := range qs {
			q.roles = append(q.roles, role)
		}
		f.Blocks[role] = b
		names := make([]string, len(qs))
		for i, q := range qs {
			names[i] = q.Name
		}
		f.Roles = append(f.Roles, role+"="+strings.Join(names, ","))
	}
	for _, role := range []string{"reset", "write", "read"} {
		if f.Blocks[role] == nil {
			return mapped, &FileError{f.Name, 0, fmt.Sprintf("no %q block: a statement file needs -- name: "+
				"reset, write and read, or a role map naming their queries (-- fencelab: %s=QUERY)", role, role)}
		}
	}
	return mapped, nil
}

// options reads isolation=, refused-on=, outcome= and decide=.
func (f *File) options(items []*item) error {
	for _, it := range items {
		if it.kind != optionItem {
			continue
		}
		line, pre := it.where()
		bad := func(msg string) error { return &FileError{f.Name, line, pre + msg} }
		v := strings.ToLower(it.val)
		switch it.key {
		case "isolation":
			lv := strings.ReplaceAll(v, "-", " ")
			if !slices.Contains(isolations, lv) {
				return bad(fmt.Sprintf("isolation=%s: use read-committed, repeatable-read or serializable", it.val))
			}
			f.Isolation = lv
		case "refused-on":
			codes, err := refusedCodes(it.val)
			if err != nil {
				return bad(err.Error())
			}
			f.refused = append(f.refused, codes...)
		case "outcome":
			if v != "rows" {
				return bad(fmt.Sprintf("outcome=%s: the one form is outcome=rows (a write is applied when its last statement returns a row)", it.val))
			}
			f.outcomeRows = true
		case "decide":
			if v != "equal" && v != "at-least" && v != "greater" {
				return bad(fmt.Sprintf("decide=%s: use equal, at-least or greater", it.val))
			}
			f.decide = v
		}
	}
	return nil
}

// shape checks a block's statements as v1 did: some statement, no
// transaction control, isolation and refused-on lines only in check and
// write.
func (f *File) shape(b *Block) error {
	for _, q := range b.Queries {
		if len(q.Statements) == 0 {
			return &FileError{f.Name, q.Line, fmt.Sprintf("block %s has no statement", q.Name)}
		}
		for _, st := range q.Statements {
			if w := st.first(); slices.Contains(txControl, w) {
				return &FileError{f.Name, st.Line, fmt.Sprintf("block %s: %s; the probe runs each block as "+
					"one transaction of its own, so leave transaction control out (an isolation line sets the level)",
					q.Name, strings.ToUpper(w))}
			}
		}
		decides := slices.Contains(q.roles, "check") || slices.Contains(q.roles, "write")
		if q.Isolation != "" && !decides {
			return &FileError{f.Name, q.isoLine, fmt.Sprintf("an isolation line in block %s: only check and write take one", q.Name)}
		}
		if q.refused != nil && !decides {
			return &FileError{f.Name, q.refLine, fmt.Sprintf("a refused-on line in query %s: only the queries of check and write take one", q.Name)}
		}
	}
	return nil
}

// bindAll binds every placeholder of the queries that play a role, in
// the file's order (so that the first mistake reported is the file's
// first), and plans their statements; each role's block then takes its
// queries' statements in the map's order.
func (f *File) bindAll(items []*item, e Engine, mapped bool) error {
	type played struct {
		role string
		q    *Query
	}
	bound := map[played][]Statement{}
	for _, q := range f.Queries {
		own := false // PostgreSQL: an item of this query's own names a ?k
		for _, it := range items {
			if it.kind == paramItem && it.query != "" && strings.EqualFold(it.query, q.Name) && it.key[0] == '?' {
				own = true
			}
		}
		for _, role := range q.roles {
			if _, done := bound[played{role, q}]; done {
				continue
			}
			var sts []Statement
			for _, st := range q.Statements {
				if err := f.bindStatement(role, q, &st, items, e, own, mapped); err != nil {
					return err
				}
				sts = append(sts, st)
			}
			bound[played{role, q}] = sts
		}
	}
	for _, role := range roleOrder {
		b := f.Blocks[role]
		if b == nil {
			continue
		}
		b.Statements = nil
		for _, q := range b.Queries {
			b.Statements = append(b.Statements, bound[played{role, q}]...)
			if role == "check" || role == "write" {
				f.refused = append(f.refused, q.refused...)
			}
		}
	}
	return nil
}

// lookup finds the item that maps key in q: q's own, else every query's.
func lookup(items []*item, q *Query, key string) *item {
	var all *item
	for _, it := range items {
		if it.kind != paramItem || it.key != key {
			continue
		}
		if it.query == "" {
			all = it
		} else if strings.EqualFold(it.query, q.Name) {
			return it
		}
	}
	return all
}

// placeholder tells whether a candidate is a placeholder on e, and what
// stays in the text when it is not; an error for one e does not allow.
func (f *File) placeholder(q *Query, p *ph, e Engine, own bool) (bool, string, error) {
	bad := func(msg string) error {
		return &FileError{f.Name, p.line, fmt.Sprintf("query %s: %s", q.Name, msg)}
	}
	switch p.kind {
	case '@':
		if !p.sqlc && (e == MySQL || e == "") {
			return false, p.written, nil // a MySQL user variable; unknown engine: decided later
		}
	case '$':
		if e == MySQL {
			return false, "", bad(fmt.Sprintf("%s: MySQL and MariaDB number no parameters; write ? and map it "+
				"(-- fencelab: %s: ?1=FACT)", p.written, q.Name))
		}
	case '?':
		switch {
		case e == "":
			return false, p.written, nil
		case p.double && e == Postgres && own:
			return false, "?", nil
		case p.double:
			return false, p.written, nil
		case e == Postgres && !own:
			if slices.Contains(beforePlaceholder, p.prev) {
				return false, "", bad(fmt.Sprintf("`?` after `%s`: PostgreSQL numbers parameters $1, $2…; if "+
					"this query's `?` are placeholders, map them (-- fencelab: %s: ?1=FACT)", p.prev, q.Name))
			}
			return false, p.written, nil // the jsonb operator
		}
	}
	return true, "", nil
}

// beforePlaceholder are the tokens after which a ? cannot be PostgreSQL's
// jsonb operator.
var beforePlaceholder = []string{"=", "<", ">", "<=", ">=", "<>", "!=", "(", ",",
	"and", "or", "not", "where", "set", "then", "else", "when", "like", "in", "is", "limit", "offset", "values", "select"}

// bindStatement resolves a statement's placeholders for a role and plans it.
func (f *File) bindStatement(role string, q *Query, st *Statement, items []*item, e Engine, own, mapped bool) error {
	st.uses = map[string]bool{}
	pb := newPlanner(e)
	pb.text(st.parts[0])
	for i, p := range st.phs {
		is, text, err := f.placeholder(q, p, e, own)
		if err != nil {
			return err
		}
		if !is {
			pb.text(text)
			pb.text(st.parts[2*i+2])
			continue
		}
		src, err := f.source(role, q, p, items, mapped)
		if err != nil {
			return err
		}
		if src.expr != nil {
			pb.expr(src.expr, st.uses)
		} else {
			if src.fact != "" {
				st.uses[src.fact] = true
			}
			pb.param(p.written, p.key(), src)
		}
		pb.text(st.parts[2*i+2])
	}
	st.plan, st.rows = pb.done(), st.ReturnsRows()
	st.cols = colNames{}
	for _, it := range items {
		if it.kind == columnItem && it.query == "" {
			st.cols[it.key] = it.val
		}
	}
	for _, it := range items {
		if it.kind == columnItem && strings.EqualFold(it.query, q.Name) {
			st.cols[it.key] = it.val
		}
	}
	return nil
}

// source finds what a placeholder binds and checks its role has it.
func (f *File) source(role string, q *Query, p *ph, items []*item, mapped bool) (*source, error) {
	who := "query " + q.Name
	if strings.EqualFold(q.Name, role) {
		who = "block " + role
	}
	bad := func(msg string) error {
		return &FileError{f.Name, p.line, fmt.Sprintf("%s: %s", who, msg)}
	}
	src := (*source)(nil)
	if it := lookup(items, q, p.key()); it != nil {
		it.used = true
		src = it.src
	}
	named := p.kind == ':' || p.kind == '@'
	switch {
	case src == nil && named && slices.Contains(facts, p.name):
		src = factSource(factName(p.name))
		src.key = p.written
		if k := q.Name + "\x00" + p.written; mapped && !f.noted[k] {
			f.noted[k] = true
			f.Notes = append(f.Notes, fmt.Sprintf("note: query %s binds %s as the probe's %s; map it "+
				"if it means something else", q.Name, p.written, p.name))
		}
	case src == nil && named && p.kind == ':' && !mapped:
		return nil, bad(fmt.Sprintf("unknown parameter %s: it is not a fact of the probe and "+
			"has no mapping; %s takes %s", p.written, role, factList(role)))
	case src == nil && named:
		return nil, bad(fmt.Sprintf("%s is not a fact of the probe and has no mapping (-- fencelab: %s=FACT, "+
			"or a literal or an (expression))", p.written, p.key()))
	case src == nil:
		return nil, bad(fmt.Sprintf("%s has no mapping: every positional placeholder needs one "+
			"(-- fencelab: %s: %s=FACT)", p.written, q.Name, p.key()))
	}
	check := func(fact, as string) error {
		if !slices.Contains(roleFacts[role], fact) {
			if !mapped && p.kind == ':' && as == p.written {
				return bad(fmt.Sprintf("unknown parameter %s in block %s; it takes %s", as, role, factList(role)))
			}
			return bad(fmt.Sprintf("%s plays %s, where %s is not a fact: %s takes %s", as, role, fact, role, factList(role)))
		}
		return nil
	}
	if src.fact != "" {
		if err := check(src.fact, p.written); err != nil {
			return nil, err
		}
	}
	if src.expr != nil {
		for _, ep := range src.expr.phs {
			if ep.kind == ':' {
				if err := check(factName(ep.name), p.written+" (through "+ep.written+")"); err != nil {
					return nil, err
				}
			}
		}
	}
	return src, nil
}

// planner builds a plan: PostgreSQL's $k, one per distinct placeholder in
// order of first use; the others' ?, one per occurrence.
type planner struct {
	e   Engine
	b   strings.Builder
	p   *plan
	num map[string]int
}

func newPlanner(e Engine) *planner {
	return &planner{e: e, p: &plan{}, num: map[string]int{}}
}

func (pb *planner) text(s string) { pb.b.WriteString(s) }

func (pb *planner) param(written, key string, src *source) {
	shown := written
	if written == "?" {
		shown = key
	}
	if !slices.Contains(pb.p.shown, shown) {
		pb.p.shown = append(pb.p.shown, shown)
	}
	if pb.e != Postgres {
		pb.b.WriteByte('?')
		pb.p.binds = append(pb.p.binds, src)
		pb.p.names = append(pb.p.names, written)
		return
	}
	if pb.num[key] == 0 {
		pb.p.binds = append(pb.p.binds, src)
		pb.p.names = append(pb.p.names, written)
		pb.num[key] = len(pb.p.binds)
	}
	pb.b.WriteString("$" + strconv.Itoa(pb.num[key]))
}

// expr pastes an (EXPRESSION), its :facts bound.
func (pb *planner) expr(e *Statement, uses map[string]bool) {
	pb.text(e.parts[0])
	for i, p := range e.phs {
		if p.kind == ':' {
			fact := factName(p.name)
			uses[fact] = true
			src := factSource(fact)
			src.key = p.written
			pb.param(p.written, ":"+p.name, src)
		} else {
			pb.text(p.written)
		}
		pb.text(e.parts[2*i+2])
	}
}

func (pb *planner) done() *plan {
	pb.p.q = pb.b.String()
	return pb.p
}

// reads tells whether a statement names a column that reads as fact:
// the fact's own name, or a column an item renames to it; a * may hold
// anything.
func (st Statement) reads(fact string) bool {
	if strings.Contains(st.Text, "*") {
		return true
	}
	for _, w := range st.words {
		if w.text == fact && st.cols[w.text] == "" || st.cols[w.text] == fact {
			return true
		}
	}
	return false
}

// columns checks what read, check and write return, from their words.
func (f *File) columns(b *Block, cfg Config) error {
	last := b.Statements[len(b.Statements)-1]
	err := func(msg string) error { return &FileError{f.Name, last.Line, msg} }
	cas := cfg.Policy != "" && cfg.Policy.ChecksVersion()
	switch b.Name {
	case "read":
		if !last.ReturnsRows() || !last.reads("value") || (!cas && !last.reads("token")) {
			return err("block read: its last statement must be a SELECT returning columns value and token " +
				"(SELECT value, token FROM … WHERE name = :resource), or columns an item " +
				"renames to them (-- fencelab: " + last.Query + ": data=value range_id=token)")
		}
	case "check":
		if !last.ReturnsRows() || !(last.reads("token") || last.reads("version") || last.reads("outcome")) {
			return err("block check: its last statement must be a SELECT returning a column token, the " +
				"highest token the receiver remembers (under cas: version, the resource's version), or outcome, its own decision")
		}
	case "write":
		rows := last.ReturnsRows()
		switch {
		case rows && !f.outcomeRows && !last.reads("outcome"):
			return err(fmt.Sprintf("query %s plays write and returns rows (%s) but no outcome column; "+
				"map one or say outcome=rows", last.Query, returning(last)))
		case !rows && f.outcomeRows:
			return err(fmt.Sprintf("outcome=rows, but query %s, which decides write, returns no rows: its "+
				"count of rows changed decides", last.Query))
		}
	}
	return nil
}

// returning is the part of a statement that returns rows, for messages.
func returning(st Statement) string {
	t := strings.Join(strings.Fields(st.Text), " ")
	if i := strings.Index(strings.ToUpper(t), "RETURNING"); i >= 0 {
		t = t[i:]
	}
	return clip(t)
}

// isolation picks the file's level: the header's, else check's queries',
// else write's; two different levels are a mistake.
func (f *File) isolation(items []*item) error {
	var from string
	var fromLine int
	if f.Isolation != "" {
		from = "the header"
		for _, it := range items {
			if it.key == "isolation" {
				fromLine = it.line
			}
		}
	}
	for _, role := range []string{"check", "write"} {
		b := f.Blocks[role]
		if b == nil {
			continue
		}
		for _, q := range b.Queries {
			switch {
			case q.Isolation == "":
			case f.Isolation == "":
				f.Isolation, from, fromLine = q.Isolation, "block "+q.Name, q.isoLine
			case f.Isolation != q.Isolation:
				return &FileError{f.Name, q.isoLine, fmt.Sprintf("block %s says isolation %s, %s (line %d) "+
					"%s: check and write run in one transaction, give one level",
					q.Name, q.Isolation, from, fromLine, f.Isolation)}
			}
		}
	}
	for _, it := range items {
		switch it.kind {
		case paramItem:
			f.Params = append(f.Params, it.text())
		case columnItem:
			f.Columns = append(f.Columns, it.text())
		case optionItem:
			f.Roles = append(f.Roles, it.text())
		}
	}
	return nil
}
