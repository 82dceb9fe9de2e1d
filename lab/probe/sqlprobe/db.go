package sqlprobe

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Engine is a database family: how its DSN, parameters and errors look.
type Engine string

// The engines the probe speaks.
const (
	Postgres Engine = "postgres"
	MySQL    Engine = "mysql" // MySQL and MariaDB
	SQLite   Engine = "sqlite"
)

// Drivers are the database/sql driver names each engine opens; the
// program registers them (pgx/v5/stdlib, go-sql-driver/mysql,
// mattn/go-sqlite3).
var Drivers = map[Engine]string{Postgres: "pgx", MySQL: "mysql", SQLite: "sqlite3"}

// sqliteParams: transactions take the write lock at BEGIN (IMMEDIATE),
// wait for it up to the busy timeout, and WAL lets readers in meanwhile.
const sqliteParams = "_busy_timeout=5000&_txlock=immediate&_journal_mode=WAL"

// DSN turns --db into an engine and the DSN its driver takes:
// postgres://… as is, mysql://user:pass@host:port/db into the
// go-sql-driver form, anything else a SQLite file path (or a file: URI,
// whose own _txlock is kept).
func DSN(db string) (Engine, string, error) {
	switch {
	case strings.HasPrefix(db, "postgres://"), strings.HasPrefix(db, "postgresql://"):
		return Postgres, db, nil
	case strings.HasPrefix(db, "mysql://"), strings.HasPrefix(db, "mariadb://"):
		dsn, err := mysqlDSN(db)
		return MySQL, dsn, err
	case strings.Contains(db, "://"):
		return "", "", fmt.Errorf("--db %q: use postgres://…, mysql://user:pass@host:port/db or a SQLite file path", Redact(db))
	case db == "":
		return "", "", errors.New("--db is empty: give postgres://…, mysql://… or a SQLite file path")
	}
	return SQLite, sqliteDSN(db), nil
}

func sqliteDSN(path string) string {
	if rest, ok := strings.CutPrefix(path, "file:"); ok {
		sep := "?"
		if strings.Contains(rest, "?") {
			sep = "&"
		}
		extra := "_busy_timeout=5000&_journal_mode=WAL"
		if !strings.Contains(rest, "_txlock=") {
			extra += "&_txlock=immediate"
		}
		return path + sep + extra
	}
	escape := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return "file:" + escape.Replace(path) + "?" + sqliteParams
}

// mysqlDSN: mysql://user:pass@host:port/db?x=y becomes
// user:pass@tcp(host:port)/db?x=y. The probe does not add
// clientFoundRows: the count of rows is the database's own.
func mysqlDSN(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || strings.Trim(u.Path, "/") == "" {
		return "", fmt.Errorf("--db %q: use mysql://user:pass@host:port/db", Redact(raw))
	}
	host := u.Host
	if u.Port() == "" {
		host += ":3306"
	}
	user := ""
	if u.User != nil {
		user = u.User.Username()
		if p, ok := u.User.Password(); ok {
			user += ":" + p
		}
		user += "@"
	}
	dsn := fmt.Sprintf("%stcp(%s)/%s", user, host, strings.Trim(u.Path, "/"))
	if u.RawQuery != "" {
		dsn += "?" + u.RawQuery
	}
	return dsn, nil
}

// Redact hides a password in a database URL.
func Redact(db string) string {
	u, err := url.Parse(db)
	if err != nil || u.User == nil {
		return db
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxx")
	}
	return u.String()
}

// pgParam is PostgreSQL's $k, or pgx's args[k-1], in an error message.
var pgParam = regexp.MustCompile(`\$([0-9]+)|args\[([0-9]+)\]`)

// renamedError is a database error whose words name the file's own
// placeholders instead of the probe's $k; its codes stay readable.
type renamedError struct {
	msg string
	err error
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }

// rename makes a PostgreSQL error that mentions a parameter name the
// file's placeholder ("parameter :token", not "parameter $2").
func (e Engine) rename(err error, names []string) error {
	if e != Postgres || len(names) == 0 {
		return err
	}
	msg := err.Error()
	out := pgParam.ReplaceAllStringFunc(msg, func(m string) string {
		sub := pgParam.FindStringSubmatch(m)
		k, _ := strconv.Atoi(sub[1])
		if sub[2] != "" {
			k, _ = strconv.Atoi(sub[2])
			k++
		}
		if k >= 1 && k <= len(names) {
			return names[k-1]
		}
		return m
	})
	if out == msg {
		return err
	}
	return &renamedError{out, err}
}

// refusedBy is the code of codes that err carries on e, or "": a
// SQLSTATE (PostgreSQL; MySQL and MariaDB report one too), a MySQL or
// MariaDB error number, a SQLite result code, primary or extended. Codes
// another engine would give are ignored. The drivers' types are not
// imported: their codes are read by method, field or words.
func (e Engine) refusedBy(err error, codes []string) string {
	if len(codes) == 0 {
		return ""
	}
	var have []string
	var coded interface{ SQLState() string }
	if errors.As(err, &coded) {
		have = append(have, coded.SQLState())
	}
	msg := err.Error()
	switch e {
	case MySQL:
		if m := mysqlCode.FindStringSubmatch(msg); m != nil {
			have = append(have, m[1], m[2])
		}
	case SQLite:
		have = append(have, sqliteErrCodes(err)...)
	}
	for _, c := range codes {
		if slices.Contains(have, c) {
			return c
		}
	}
	return ""
}

var mysqlCode = regexp.MustCompile(`Error ([0-9]+)(?: \(([0-9A-Z]{5})\))?`)

// sqliteErrCodes reads mattn/go-sqlite3's Error: its Code and
// ExtendedCode fields, as decimal text.
func sqliteErrCodes(err error) []string {
	for e := err; e != nil; e = errors.Unwrap(e) {
		v := reflect.ValueOf(e)
		if v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			continue
		}
		c, x := v.FieldByName("Code"), v.FieldByName("ExtendedCode")
		if c.IsValid() && x.IsValid() && c.CanInt() && x.CanInt() {
			return []string{strconv.FormatInt(c.Int(), 10), strconv.FormatInt(x.Int(), 10)}
		}
	}
	return nil
}

// level maps an isolation line to database/sql's level; SQLite ignores
// them all (every transaction is BEGIN IMMEDIATE).
func (e Engine) level(iso string) sql.IsolationLevel {
	if e == SQLite {
		return sql.LevelDefault
	}
	switch iso {
	case "read committed":
		return sql.LevelReadCommitted
	case "repeatable read":
		return sql.LevelRepeatableRead
	case "serializable":
		return sql.LevelSerializable
	}
	return sql.LevelDefault
}

var mysqlNumber = regexp.MustCompile(`^Error (\d+)`)

// retryable reports a serialization failure, deadlock or snapshot
// conflict, which a service retries: SQLSTATE 40001 and 40P01; MySQL and
// MariaDB errors 1213, 1205 and 1020; SQLite busy or locked. The drivers'
// error types are not imported: PostgreSQL's errors tell their SQLSTATE
// by a method, the others by their words.
func retryable(err error) bool {
	var coded interface{ SQLState() string }
	if errors.As(err, &coded) {
		return coded.SQLState() == "40001" || coded.SQLState() == "40P01"
	}
	msg := err.Error()
	if m := mysqlNumber.FindStringSubmatch(msg); m != nil {
		return m[1] == "1213" || m[1] == "1205" || m[1] == "1020"
	}
	return strings.Contains(msg, "database is locked") || strings.Contains(msg, "database table is locked") ||
		strings.Contains(msg, "SQLITE_BUSY")
}
