package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"fencelab/lab"
	"fencelab/lab/probe/sqlprobe"
	"fencelab/lab/receiver"

	_ "github.com/mattn/go-sqlite3" // the "sqlite3" driver of the SQLite receiver
)

// receiverFlags are the options of `fencelab receiver`.
type receiverFlags struct {
	addr, store, db string
	opt             receiver.Options
}

// runReceiver serves a reference receiver until SIGINT or SIGTERM. It
// prints the URL to give `fencelab probe --target` once it listens.
func runReceiver(args []string, stdout, stderr io.Writer) error {
	f, err := parseReceiverFlags(args)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return err
	}
	return serveReceiver(ctx, ln, f, stdout, stderr)
}

func serveReceiver(ctx context.Context, ln net.Listener, f receiverFlags, stdout, stderr io.Writer) error {
	st, err := openReceiverStore(ctx, f)
	if err != nil {
		ln.Close()
		return err
	}
	defer st.Close()
	log := slog.New(slog.NewTextHandler(stderr, nil))
	hs := &http.Server{Handler: receiver.Handler(st, f.opt, log), ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout: readTimeout, WriteTimeout: writeTimeout, IdleTimeout: idleTimeout,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	flaw := "correct"
	if f.opt.Flaw != receiver.Correct {
		flaw = "flaw " + string(f.opt.Flaw)
	}
	fmt.Fprintf(stdout, "receiver (%s, %s store, %s) listening on http://%s\n", f.opt.Policy, storeName(f.store), flaw, ln.Addr())
	return serveUntilDone(ctx, log, hs, ln)
}

func parseReceiverFlags(args []string) (receiverFlags, error) {
	var f receiverFlags
	fs := flag.NewFlagSet("receiver", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8081", "listen address (port 0: any free port)")
	policy := fs.String("policy", string(lab.Fenced), "the policy it implements, one of: "+strings.Trim(fmt.Sprint(receiver.Policies), "[]"))
	fs.StringVar(&f.store, "store", "memory", "memory, sqlite, postgres://… or mysql://user:pass@host:port/db (the statements: docs/probe.md)")
	fs.StringVar(&f.db, "db", "./receiver.db", "the SQLite file of --store sqlite")
	flaw := fs.String("flaw", "", "racy or forgetful: a receiver broken on purpose")
	fs.DurationVar(&f.opt.Window, "window", 0, "with --flaw racy, a pause between check and write, as in 2ms")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return f, &usageError{"receiver: " + receiverUsage}
		}
		return f, &usageError{"receiver: " + err.Error()}
	}
	if fs.NArg() > 0 {
		return f, &usageError{fmt.Sprintf("receiver takes no arguments, got %q", fs.Args())}
	}
	f.opt.Policy, f.opt.Flaw = lab.Policy(*policy), receiver.Flaw(*flaw)
	if err := f.opt.Validate(); err != nil {
		return f, &usageError{"receiver: " + err.Error()}
	}
	if f.store != "memory" && f.store != "sqlite" && !isDatabaseURL(f.store) {
		return f, &usageError{fmt.Sprintf("receiver: unknown --store %q: use memory, sqlite, postgres://… or "+
			"mysql://user:pass@host:port/db", sqlprobe.Redact(f.store))}
	}
	return f, nil
}

const receiverUsage = `fencelab receiver [--addr 127.0.0.1:8081] [--policy P] [--store memory|sqlite|postgres://…|mysql://…] ` +
	`[--db PATH] [--flaw racy|forgetful] [--window D]

On PostgreSQL, MySQL and MariaDB each write is one transaction:
  SELECT token FROM fencelab_receiver_floor WHERE id = 1 FOR UPDATE
  INSERT the resource's row when missing (ON CONFLICT DO NOTHING / INSERT IGNORE)
  SELECT remembered FROM fencelab_receiver_resources WHERE name = ? FOR UPDATE
  SELECT count(*) FROM fencelab_receiver_ops WHERE resource = ? AND op = ?   (fenced-idempotent)
  the decision in Go, then
  UPDATE fencelab_receiver_resources SET value = ?, token = ?, remembered = ? WHERE name = ?
  INSERT the op key when missing
--flaw racy reads without FOR UPDATE. Every statement: docs/probe.md.
`

// openReceiverStore opens the store --store names.
func openReceiverStore(ctx context.Context, f receiverFlags) (receiver.Store, error) {
	switch {
	case f.store == "sqlite":
		return receiver.OpenSQLite(f.db, f.opt)
	case isDatabaseURL(f.store):
		return receiver.OpenDatabase(ctx, f.store, f.opt)
	}
	return receiver.NewMemory(f.opt), nil
}

func isDatabaseURL(s string) bool {
	e, _, err := sqlprobe.DSN(s)
	return err == nil && e != sqlprobe.SQLite
}

// storeName names a store without its password.
func storeName(store string) string {
	if isDatabaseURL(store) {
		e, _, _ := sqlprobe.DSN(store)
		return string(e) + " (" + sqlprobe.Redact(store) + ")"
	}
	return store
}
