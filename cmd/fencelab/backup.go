package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"fencelab/server/store/sqlite"
)

// backup runs `fencelab backup [--db FILE] PATH`: a consistent copy of a
// SQLite store, taken while its server runs. PostgreSQL is backed up with
// its own tools (docs/operations.md).
func backup(args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("backup", flag.ContinueOnError)
	flags.SetOutput(stderr)
	db := flags.String("db", envOr("FENCELAB_DB", "./fencelab.db"), "the server's SQLite file (env FENCELAB_DB)")
	if err := parseFlags(flags, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if flags.NArg() != 1 {
		return &usageError{fmt.Sprintf("backup takes one path to write the copy to, got %q", flags.Args())}
	}
	if isPostgres(*db) {
		return errors.New("backup copies a SQLite file; back up PostgreSQL with pg_dump (see docs/operations.md, Backup and restore)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	if err := sqlite.Backup(ctx, *db, flags.Arg(0)); err != nil {
		return err
	}
	fi, err := os.Stat(flags.Arg(0))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s: %d bytes in %s; the copy holds the link secret, keep it as safe as the database\n",
		*db, flags.Arg(0), fi.Size(), time.Since(start).Round(time.Millisecond))
	return nil
}
