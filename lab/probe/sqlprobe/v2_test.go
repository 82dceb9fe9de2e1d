package sqlprobe_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"fencelab/lab"
	"fencelab/lab/probe/sqlprobe"
)

// v2Base is a file whose queries are named as a project names them, with
// a role map: reset, write and read.
const v2Base = `-- fencelab: reset=Truncate write=CompleteJob read=GetJob
-- name: Truncate :exec
DELETE FROM jobs;
-- name: GetJob :one
SELECT value, token FROM jobs WHERE name = @resource;
`

func TestParseV2Mistakes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		engine sqlprobe.Engine
		policy lab.Policy
		file   string
		items  []sqlprobe.FlagItem
		line   int
		words  string
	}{
		{"an annotation that is not sqlc's", sqlprobe.Postgres, "", v2Base + "-- name: CompleteJob :execute\nUPDATE jobs SET value = @value;\n", nil, 6, `":execute" after the name is not one of sqlc's commands`},
		{"a foreign @name", sqlprobe.Postgres, "", v2Base + "-- name: CompleteJob :exec\nUPDATE jobs\n SET leader = @leader_id;\n", nil, 8, "@leader_id is not a fact of the probe and has no mapping"},
		{"sqlc.narg", sqlprobe.Postgres, "", v2Base + "-- name: CompleteJob :exec\nUPDATE jobs SET at = coalesce(sqlc.narg('now')::timestamptz, now());\n", nil, 7, "query CompleteJob: sqlc.narg('now') is not a fact of the probe and has no mapping"},
		{"an unmapped ? on MySQL", sqlprobe.MySQL, "", v2Base + "-- name: CompleteJob :exec\nUPDATE jobs SET value = ? WHERE name = sqlc.arg(resource);\n", nil, 7, "? has no mapping"},
		{"a leftover $2", sqlprobe.Postgres, "", v2Base + "-- name: CompleteJob :exec\nUPDATE jobs SET value = :value\n WHERE token <= $2;\n", nil, 8, "$2 has no mapping"},
		{"$1 on MySQL", sqlprobe.MySQL, "", v2Base + "-- name: CompleteJob :exec\nUPDATE jobs SET value = $1;\n", []sqlprobe.FlagItem{{Flag: "--param", Text: "$1=value"}}, 7, "MySQL and MariaDB number no parameters"},
		{"? after = on PostgreSQL", sqlprobe.Postgres, "", v2Base + "-- name: CompleteJob :exec\nUPDATE jobs SET value = 'x'\n WHERE shard_id = ? ;\n", nil, 8, "`?` after `=`: PostgreSQL numbers parameters $1, $2"},
		{"a role naming a missing query", sqlprobe.SQLite, "", strings.Replace(v2Base, "write=CompleteJob", "write=updateExecutionQry", 1) + "-- name: CompleteJob\nUPDATE jobs SET value = :value;\n", nil, 1, "role write names updateExecutionQry: no query of that name; the file's queries: Truncate (line 2), GetJob (line 4), CompleteJob (line 6)"},
		{"a flag naming a missing query", sqlprobe.SQLite, "", v2Base + "-- name: CompleteJob\nUPDATE jobs SET value = :value;\n", []sqlprobe.FlagItem{{Flag: "--role", Text: "check=GetLatest"}}, 0, "--role check=GetLatest: role check names GetLatest"},
		{"an unused item", sqlprobe.SQLite, "", "-- fencelab: $3=token\n" + v2Base + "-- name: CompleteJob\nUPDATE jobs SET value = :value;\n", nil, 1, "the item $3=token maps a placeholder no query that plays a role uses"},
		{"an unused item of one query", sqlprobe.SQLite, "", "-- fencelab: CompleteJob: ?2=token\n" + v2Base + "-- name: CompleteJob\nUPDATE jobs SET value = ?;\n", []sqlprobe.FlagItem{{Flag: "--param", Text: "?1=value"}}, 1, "query CompleteJob does not use it"},
		{"a write returning rows", sqlprobe.SQLite, "", v2Base + "-- name: CompleteJob :one\nINSERT INTO jobs (name, value)\nVALUES (:resource, :value) RETURNING id;\n", nil, 7, "query CompleteJob plays write and returns rows (RETURNING id) but no outcome column; map one or say outcome=rows"},
		{"outcome=rows on a write returning none", sqlprobe.SQLite, "", "-- fencelab: outcome=rows\n" + v2Base + "-- name: CompleteJob\nUPDATE jobs SET value = :value;\n", nil, 8, "outcome=rows, but query CompleteJob"},
		{"a fact grant lacks", sqlprobe.SQLite, "", v2Base + "-- name: CompleteJob\nUPDATE jobs SET value = :value;\n-- name: grant\nUPDATE holders SET token = :token, v = :value;\n", nil, 9, ":value plays grant, where value is not a fact"},
		{"QUERY: naming no query", sqlprobe.SQLite, "", "-- fencelab: Nope: data=value\n" + v2Base + "-- name: CompleteJob\nUPDATE jobs SET value = :value;\n", nil, 1, "Nope: no query of that name"},
		{"a key twice", sqlprobe.SQLite, "", "-- fencelab: $1=token\n-- fencelab: $1=value\n" + v2Base + "-- name: CompleteJob\nUPDATE jobs SET value = $1;\n", nil, 2, "$1 is given twice"},
		{"a header line after a query", sqlprobe.SQLite, "", v2Base + "-- fencelab: check=GetJob\n-- name: CompleteJob\nUPDATE jobs SET value = :value;\n", nil, 6, "after the first -- name: line"},
		{"a malformed refused-on", sqlprobe.SQLite, "", "-- fencelab: refused-on=23505,dup\n" + v2Base + "-- name: CompleteJob\nUPDATE jobs SET value = :value;\n", nil, 1, `refused-on code "dup"`},
		{"an unknown item", sqlprobe.SQLite, "", "-- fencelab: policy=cas\n" + v2Base + "-- name: CompleteJob\nUPDATE jobs SET value = :value;\n", nil, 1, "policy is none of a role"},
		{"a check returning nothing it needs", sqlprobe.SQLite, "", "-- fencelab: check=Peek\n" + v2Base + "-- name: CompleteJob\nUPDATE jobs SET value = :value;\n-- name: Peek\nSELECT 1 FROM jobs;\n", nil, 10, "block check: its last statement must be a SELECT"},
		{"a read without token", sqlprobe.SQLite, lab.Fenced, strings.Replace(v2Base, "value, token", "value", 1) + "-- name: CompleteJob\nUPDATE jobs SET value = :value;\n", nil, 5, "block read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sqlprobe.ParseWith("r.sql", strings.NewReader(tt.file), sqlprobe.Config{Engine: tt.engine, Policy: tt.policy, Items: tt.items})
			var fe *sqlprobe.FileError
			if !errors.As(err, &fe) {
				t.Fatalf("ParseWith(%s) = %v, want a FileError\n%s", tt.engine, err, tt.file)
			}
			if fe.Line != tt.line || !strings.Contains(err.Error(), tt.words) {
				t.Errorf("ParseWith(%s) = %q (line %d), want line %d saying %q", tt.engine, err, fe.Line, tt.line, tt.words)
			}
		})
	}
}

// TestParseV2Binds: every style of placeholder reads as its fact, a map
// item as its value; PostgreSQL's ? stays the jsonb operator unless the
// query maps its own; a cas read needs no token.
func TestParseV2Binds(t *testing.T) {
	t.Parallel()
	file := `-- fencelab: write=SetState,Done read=GetJob outcome=rows
-- fencelab: $2=(nextval('seq')) @attempt=token
-- fencelab: GetJob: data=value
-- name: reset
DELETE FROM jobs;
-- name: SetState :exec
UPDATE jobs SET state = 'done' WHERE metadata ? 'cancel' AND attempt = @attempt AND name = sqlc.arg(resource);
-- name: Done :one
UPDATE jobs SET seq = $2, data = :value WHERE name = @resource RETURNING id;
-- name: GetJob :one
SELECT data, token FROM jobs WHERE name = $1;
`
	f, err := sqlprobe.ParseWith("r.sql", strings.NewReader(file), sqlprobe.Config{Engine: sqlprobe.Postgres, Items: []sqlprobe.FlagItem{{Flag: "--param", Text: "GetJob: $1=resource"}}})
	if err != nil {
		t.Fatalf("ParseWith: %v", err)
	}
	w := f.Blocks["write"].Statements
	if len(w) != 2 || w[0].Query != "SetState" || w[1].Query != "Done" {
		t.Fatalf("write = %+v, want SetState's statement then Done's", w)
	}
	if got := sqlprobe.Planned(w[0]); got != "UPDATE jobs SET state = 'done' WHERE metadata ? 'cancel' AND attempt = $1 AND name = $2" {
		t.Errorf("SetState on PostgreSQL = %q", got)
	}
	if got := sqlprobe.Planned(w[1]); got != "UPDATE jobs SET seq = (nextval('seq')), data = $1 WHERE name = $2 RETURNING id" {
		t.Errorf("Done on PostgreSQL = %q", got)
	}
	if !slices.Contains(f.Roles, "write=SetState,Done") || !slices.Contains(f.Params, "GetJob: $1=resource") || !slices.Contains(f.Columns, "GetJob: data=value") {
		t.Errorf("maps = %q %q %q", f.Roles, f.Params, f.Columns)
	}
	if len(f.Notes) != 3 {
		t.Errorf("notes = %q, want one for each of @resource, sqlc.arg(resource) and :value", f.Notes)
	}
	// On SQLite ? are placeholders; PostgreSQL's mapped ?, with ?? a literal.
	kine := `-- fencelab: write=InsertSQL read=Latest check=Latest outcome=rows refused-on=23505,2067
-- fencelab: InsertSQL: ?1=resource ?2=expect_version ?3=value
-- name: reset
DELETE FROM kine;
-- name: InsertSQL
INSERT INTO kine(name, prev_revision, value, flag) SELECT ?, ?, ?, '??' RETURNING id;
-- name: Latest
SELECT value, id AS token FROM kine WHERE name = :resource ORDER BY id DESC LIMIT 1;
`
	for e, want := range map[sqlprobe.Engine]string{
		sqlprobe.SQLite:   "INSERT INTO kine(name, prev_revision, value, flag) SELECT ?, ?, ?, '??' RETURNING id",
		sqlprobe.Postgres: "INSERT INTO kine(name, prev_revision, value, flag) SELECT $1, $2, $3, '??' RETURNING id",
	} {
		f, err := sqlprobe.ParseWith("kine.sql", strings.NewReader(kine), sqlprobe.Config{Engine: e, Policy: lab.CAS})
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		if got := sqlprobe.Planned(f.Blocks["write"].Statements[0]); got != want {
			t.Errorf("InsertSQL on %s = %q, want %q", e, got, want)
		}
	}
}
