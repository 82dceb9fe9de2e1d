package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"fencelab/lab/probe"
	"fencelab/lab/probe/sqlprobe"

	_ "github.com/go-sql-driver/mysql" // "mysql": MySQL and MariaDB for probe --sql and receiver --store mysql://
	_ "github.com/jackc/pgx/v5/stdlib" // "pgx": PostgreSQL for probe --sql and receiver --store postgres://
)

// sqlFlags are the options of a probe that plays a statement file
// against a database instead of an HTTP receiver.
type sqlFlags struct {
	file      string
	db        string
	isolation string
	retries   int
	items     []sqlprobe.FlagItem // --role and --param, in order
}

// itemFlag gathers --role and --param items.
type itemFlag struct {
	name  string
	items *[]sqlprobe.FlagItem
}

func (f *itemFlag) String() string { return "" }

func (f *itemFlag) Set(s string) error {
	*f.items = append(*f.items, sqlprobe.FlagItem{Flag: f.name, Text: s})
	return nil
}

// openReceiver opens what the flags name: an HTTP receiver (--target) or
// a statement file against a database (--sql, --db). done releases it.
func openReceiver(ctx context.Context, f probeFlags, stderr io.Writer) (probe.Receiver, func(), error) {
	if f.sql.file == "" {
		client, err := probe.NewClient(f.target, f.timeout, max(f.concurrent, 1))
		if err != nil {
			return nil, nil, &usageError{"probe: " + err.Error()}
		}
		return client, client.Close, nil
	}
	engine, _, err := sqlprobe.DSN(f.sql.db)
	if err != nil {
		return nil, nil, &usageError{"probe: " + err.Error()}
	}
	// Bound for the engine of --db: every mistake is found before the
	// probe connects.
	file, err := readSQLFile(f.sql.file, sqlprobe.Config{Engine: engine, Policy: f.policy, Items: f.sql.items})
	if err != nil {
		return nil, nil, err
	}
	for _, n := range file.Notes {
		fmt.Fprintln(stderr, n)
	}
	r, err := sqlprobe.Open(ctx, file, f.sql.db, sqlprobe.Options{Policy: f.policy,
		Isolation: f.sql.isolation, Retries: f.sql.retries, Conns: max(f.concurrent, 1)})
	if err != nil {
		return nil, nil, err
	}
	return r, func() { r.Close() }, nil
}

func readSQLFile(name string, cfg sqlprobe.Config) (*sqlprobe.File, error) {
	in, err := os.Open(name)
	if err != nil {
		return nil, &usageError{"probe: --sql: " + err.Error()}
	}
	defer in.Close()
	return sqlprobe.ParseWith(name, in, cfg)
}

// annotate keeps a SQL receiver's statements with its result and names
// them where the receiver and the model differ.
func annotate(r probe.Receiver, res *probe.Result) {
	if s, ok := r.(*sqlprobe.Receiver); ok {
		s.Annotate(res)
	}
}

// checkSQLFlags: --sql and --db go together, and not with --target.
func checkSQLFlags(f *probeFlags) error {
	s := f.sql
	usage := func(msg string) error { return &usageError{"probe: " + msg} }
	iso := strings.ToLower(s.isolation)
	switch {
	case f.target != "" && (s.file != "" || s.db != ""):
		return usage("give --target URL (an HTTP receiver) or --sql FILE --db URL (a database), not both")
	case f.target != "":
		return nil
	case s.file == "" && s.db == "":
		return usage("give --target URL, the receiver's base URL, or --sql FILE --db URL")
	case s.file == "":
		return usage("--db needs --sql FILE, the statements your service runs")
	case s.db == "":
		return usage("--sql needs --db URL: postgres://…, mysql://user:pass@host:port/db or a SQLite file")
	case iso != "" && iso != "read committed" && iso != "repeatable read" && iso != "serializable":
		return usage(fmt.Sprintf("--isolation %q: use read committed, repeatable read or serializable", s.isolation))
	case s.retries < 0:
		return usage("--retries must not be negative")
	}
	return nil
}
