package sqlprobe

import (
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"fencelab/lab/probe"
)

// Annotate keeps the statement file with a result and, where the
// receiver and the model differ, names the blocks and statements that
// decided: the check block's (if any) and the write block's.
func (r *Receiver) Annotate(res *probe.Result) {
	res.SQL = r.SQLFile()
	nameRequests(res)
	if res.Verdict != probe.Disagree {
		return
	}
	res.Divergence += ". " + r.Deciders()
	if v := r.versionWords(); v != "" && res.Mode == "sequential" {
		res.Divergence += ". " + v
	}
}

// nameRequests names each step's request by the queries that ran it
// ("SQL write CompleteJob"), not by the HTTP contract's "POST /writes".
func nameRequests(res *probe.Result) {
	steps := res.Steps
	if res.Orderings != nil {
		steps = res.Orderings.FirstSteps
	}
	for i := range steps {
		steps[i].Request = res.SQL.RequestName(steps[i].Request)
	}
}

// VersionName is a version the probe numbered (see version) as the
// receiver gave it.
func (r *Receiver) VersionName(resource string, v int64) string {
	r.vmu.Lock()
	defer r.vmu.Unlock()
	seen := r.seen[resource]
	raw := v
	switch {
	case v < 0:
		return "one below a version it gave before"
	case r.declared.Concurrent:
	case int(v) < len(seen):
		raw = seen[v]
	}
	if g, ok := r.given[raw]; ok {
		return fmt.Sprint(g)
	}
	return strconv.FormatInt(raw, 10)
}

// versionWords tells the versions the probe numbered in order against
// the receiver's own, when they differ: "" when they are the same.
func (r *Receiver) versionWords() string {
	if !r.opt.Policy.ChecksVersion() {
		return ""
	}
	r.vmu.Lock()
	defer r.vmu.Unlock()
	var parts []string
	same := true
	for _, name := range slices.Sorted(maps.Keys(r.seen)) {
		for i, v := range r.seen[name] {
			same = same && v == int64(i)
			parts = append(parts, fmt.Sprintf("%s %d = %d", name, i, v))
		}
	}
	if same {
		return ""
	}
	return "The probe numbers the versions it read 0, 1, 2… in the order they rose; the receiver's own: " + strings.Join(parts, ", ")
}

// SQLFile is the statement file as a saved probe keeps it: its text, its
// queries with their roles and placeholders, and the maps.
func (r *Receiver) SQLFile() *probe.SQLFile {
	iso := ""
	if r.iso != sql.LevelDefault {
		iso = strings.ToLower(r.iso.String())
	}
	f := r.file
	out := &probe.SQLFile{Name: f.Name, Engine: string(r.engine), Isolation: iso, Text: f.Text,
		Roles: f.Roles, Params: f.Params, Columns: f.Columns}
	for _, q := range f.Queries {
		sq := probe.SQLQuery{Name: q.Name, Line: q.Line, Roles: q.roles}
		for _, role := range q.roles {
			for _, st := range f.Blocks[role].Statements {
				if st.Query != q.Name {
					continue
				}
				for _, n := range st.plan.shown {
					if !slices.Contains(sq.Placeholders, n) {
						sq.Placeholders = append(sq.Placeholders, n)
					}
				}
			}
		}
		out.Queries = append(out.Queries, sq)
	}
	return out
}

// Deciders names the statements that decide a write, in words.
func (r *Receiver) Deciders() string {
	var parts []string
	for _, name := range []string{"check", "write"} {
		b := r.file.Blocks[name]
		if b == nil {
			continue
		}
		for _, st := range b.Statements {
			q := ""
			if !strings.EqualFold(st.Query, name) {
				q = " query " + st.Query
			}
			parts = append(parts, fmt.Sprintf("block %s%s statement %d (%s line %d): %s", name, q, st.Index, r.file.Name, st.Line, clip(st.Text)))
		}
	}
	iso := "the database's default isolation"
	if r.engine == SQLite {
		iso = "BEGIN IMMEDIATE"
	} else if r.iso.String() != "Default" {
		iso = "isolation " + strings.ToLower(r.iso.String())
	}
	return fmt.Sprintf("The statements that decided, in one transaction at %s on %s: %s", iso, r.engine, strings.Join(parts, "; "))
}
