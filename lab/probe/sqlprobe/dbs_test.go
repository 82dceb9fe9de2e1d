package sqlprobe_test

import (
	"crypto/rand"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fencelab/lab/probe/sqlprobe"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "github.com/mattn/go-sqlite3"
)

// The variables that name real servers for tests, and that make the tests
// fail rather than skip without one (.ci/run sets both).
const (
	postgresEnv      = "FENCELAB_TEST_POSTGRES"
	postgresRequired = "FENCELAB_POSTGRES_TESTS"
	mariaDBEnv       = "FENCELAB_TEST_MARIADB"
	mariaDBRequired  = "FENCELAB_MARIADB_TESTS"
)

// database returns a --db for engine: a fresh SQLite file, a fresh
// PostgreSQL schema, or the MariaDB database of FENCELAB_TEST_MARIADB
// (whose tables the statement files reset themselves). Real servers skip
// under -short and when not named, unless required.
func database(t testing.TB, engine sqlprobe.Engine) string {
	t.Helper()
	switch engine {
	case sqlprobe.SQLite:
		return filepath.Join(t.TempDir(), "receiver.db")
	case sqlprobe.Postgres:
		return freshSchema(t, server(t, postgresEnv, postgresRequired))
	}
	return server(t, mariaDBEnv, mariaDBRequired)
}

func server(t testing.TB, env, required string) string {
	t.Helper()
	if testing.Short() {
		t.Skipf("a real server (%s): not under -short", env)
	}
	u := os.Getenv(env)
	if u == "" {
		if os.Getenv(required) == "required" {
			t.Fatalf("%s=required but %s names no server", required, env)
		}
		t.Skipf("a real server: set %s to run", env)
	}
	return u
}

// freshSchema creates a schema dropped after the test and returns base
// with search_path set to it.
func freshSchema(t testing.TB, base string) string {
	t.Helper()
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	schema := "fencelab_sqlprobe_" + strings.ToLower(rand.Text()[:10])
	if _, err := db.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		db, err := sql.Open("pgx", base)
		if err == nil {
			db.Exec("DROP SCHEMA " + schema + " CASCADE")
			db.Close()
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// engineOf tells a docs/sql file's engine by its name.
func engineOf(name string) sqlprobe.Engine {
	switch {
	case strings.HasPrefix(name, "postgres-"):
		return sqlprobe.Postgres
	case strings.HasPrefix(name, "mysql-"):
		return sqlprobe.MySQL
	}
	return sqlprobe.SQLite
}
