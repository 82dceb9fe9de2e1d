package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"fencelab/server/store"
	"fencelab/views/export"
)

// adminTimeout bounds an admin command's wait for its database: an
// operator at a terminal wants an answer, not the server's 30 s of
// patience with a database that is starting.
const adminTimeout = 15 * time.Second

// exitError is a failure with its own exit code; its message is printed.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// exitNoRun is the exit code of an admin command given an id that no
// saved run has, so that a script can tell a typo from a broken store (1).
const exitNoRun = 3

// adminStore is what the admin commands need of a store.
type adminStore interface {
	database
	store.Takedowns
}

// admin runs `fencelab admin hide|unhide|list|purge` against the database a
// server uses, while it runs: the server reads takedowns on every request.
func admin(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return &usageError{"admin needs a command: hide, unhide, list or purge"}
	}
	switch args[0] {
	case "hide":
		return adminHide(args[1:], stdout, stderr)
	case "unhide":
		return adminUnhide(args[1:], stdout, stderr)
	case "list":
		return adminList(args[1:], stdout, stderr)
	case "purge":
		return adminPurge(args[1:], stdout, stderr)
	}
	return &usageError{fmt.Sprintf("unknown admin command %q: hide, unhide, list or purge", args[0])}
}

func adminHide(args []string, stdout, stderr io.Writer) error {
	flags, db := adminFlags("admin hide", stderr)
	reason := flags.String("reason", "", "why the run is hidden, in words for the public: its page shows them (required)")
	id, err := oneID(flags, args)
	if err != nil {
		return err
	}
	if strings.TrimSpace(*reason) == "" {
		return &usageError{"admin hide needs --reason: the words the public reads on the run's page"}
	}
	return withAdminStore(*db, func(ctx context.Context, s adminStore) error {
		if err := s.Hide(ctx, id, strings.TrimSpace(*reason), time.Now()); err != nil {
			return runError(id, err)
		}
		fmt.Fprintf(stdout, "hid run %s: every page, export, preview and the API answer 410 Gone from now on\n", id)
		return nil
	})
}

func adminUnhide(args []string, stdout, stderr io.Writer) error {
	flags, db := adminFlags("admin unhide", stderr)
	id, err := oneID(flags, args)
	if err != nil {
		return err
	}
	return withAdminStore(*db, func(ctx context.Context, s adminStore) error {
		if err := s.Unhide(ctx, id); err != nil {
			return runError(id, err)
		}
		fmt.Fprintf(stdout, "run %s is shown again\n", id)
		return nil
	})
}

func adminList(args []string, stdout, stderr io.Writer) error {
	flags, db := adminFlags("admin list", stderr)
	recent := flags.Int("recent", 20, "how many of the runs saved last to list, newest first")
	if err := parseFlags(flags, args); err != nil {
		return helpOrUsage(err)
	}
	if flags.NArg() > 0 || *recent < 1 {
		return &usageError{"usage: fencelab admin list [--recent N] [--db PATH|URL], N at least 1"}
	}
	return withAdminStore(*db, func(ctx context.Context, s adminStore) error {
		runs, err := s.Recent(ctx, *recent)
		if err != nil {
			return err
		}
		w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tSAVED (UTC)\tBYTES\tHIDDEN\tTITLE")
		for _, r := range runs {
			hidden := "-"
			if r.Reason != "" {
				hidden = fmt.Sprintf("%q", r.Reason)
			}
			fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\n", r.ID, r.CreatedAt.UTC().Format("2006-01-02 15:04:05"), r.Bytes, hidden, r.Title)
		}
		return w.Flush()
	})
}

// adminPurge deletes the runs a flood saved: by the client that saved
// them, by the time they were saved, or both; --dry-run lists them only.
// Hidden runs are never purged: their takedowns stay as they are.
func adminPurge(args []string, stdout, stderr io.Writer) error {
	flags, db := adminFlags("admin purge", stderr)
	clientFlag := flags.String("client", "", "the address or network (CIDR) that saved the runs, such as "+
		"198.51.100.7 or 2001:db8::/48; an IPv6 address stands for its /64")
	since := flags.String("since", "", "runs saved at or after this time (RFC 3339, such as "+
		"2026-12-01T20:00:00Z), or this long ago (such as 2h)")
	until := flags.String("until", "", "runs saved before this time (RFC 3339), or this long ago")
	dryRun := flags.Bool("dry-run", false, "list the runs that would be purged, and delete nothing")
	if err := parseFlags(flags, args); err != nil {
		return helpOrUsage(err)
	}
	if flags.NArg() > 0 {
		return &usageError{fmt.Sprintf("admin purge takes no arguments, got %q", flags.Args())}
	}
	now := time.Now()
	var f store.PurgeFilter
	var err error
	if f.Within, err = purgeClient(*clientFlag); err != nil {
		return err
	}
	if f.From, err = purgeTime("--since", *since, now); err != nil {
		return err
	}
	if f.To, err = purgeTime("--until", *until, now); err != nil {
		return err
	}
	if !f.Within.IsValid() && f.From.IsZero() && f.To.IsZero() {
		return &usageError{"admin purge needs --client, --since or --until: it never purges every run"}
	}
	if !f.From.IsZero() && !f.To.IsZero() && !f.From.Before(f.To) {
		return &usageError{"admin purge: --since must come before --until"}
	}
	f.DryRun = *dryRun
	return withAdminStore(*db, func(ctx context.Context, s adminStore) error {
		p, ok := s.(store.Purger)
		if !ok {
			return fmt.Errorf("the database %s cannot purge runs", redact(*db))
		}
		runs, err := p.Purge(ctx, f)
		if err != nil {
			return err
		}
		var bytes int64
		w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tSAVED (UTC)\tBYTES\tCLIENT\tTITLE")
		for _, r := range runs {
			bytes += r.Bytes
			client := r.Client
			if client == "" {
				client = "-"
			}
			fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\n", r.ID, r.CreatedAt.UTC().Format("2006-01-02 15:04:05"), r.Bytes, client, r.Title)
		}
		if err := w.Flush(); err != nil {
			return err
		}
		verb := "purged"
		if f.DryRun {
			verb = "would purge (dry run, nothing deleted)"
		}
		fmt.Fprintf(stdout, "%s %s, %s; hidden runs are kept. Every server on the database answers 404 for a "+
			"purged run at its next request.\n", verb, export.Plural(len(runs), "run"), export.Plural(int(bytes), "byte"))
		return nil
	})
}

// purgeClient reads --client: an address or a CIDR network; an IPv6
// address alone is its /64, as the server counts clients.
func purgeClient(v string) (netip.Prefix, error) {
	if v == "" {
		return netip.Prefix{}, nil
	}
	if p, err := netip.ParsePrefix(v); err == nil {
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(v)
	if err != nil {
		return netip.Prefix{}, &usageError{fmt.Sprintf("--client must be an address or a CIDR network such as 198.51.100.0/24, not %q", v)}
	}
	a = a.Unmap()
	if a.Is6() {
		return netip.PrefixFrom(a, 64).Masked(), nil
	}
	return netip.PrefixFrom(a, 32), nil
}

// purgeTime reads --since or --until: an RFC 3339 time, or a duration
// back from now.
func purgeTime(name, v string, now time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(v); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, &usageError{fmt.Sprintf("%s must be a time such as 2026-12-01T20:00:00Z or a duration such as 2h, not %q", name, v)}
}

// adminFlags is a flag set with --db, which defaults as serve's does.
func adminFlags(name string, stderr io.Writer) (*flag.FlagSet, *string) {
	flags := flag.NewFlagSet(name, flag.ContinueOnError)
	flags.SetOutput(stderr)
	db := flags.String("db", envOr("FENCELAB_DB", "./fencelab.db"), "the server's SQLite file or postgres:// URL (env FENCELAB_DB)")
	return flags, db
}

// oneID parses flags given before or after the one run id.
func oneID(flags *flag.FlagSet, args []string) (string, error) {
	if err := parseFlags(flags, args); err != nil {
		return "", helpOrUsage(err)
	}
	if flags.NArg() != 1 {
		return "", &usageError{fmt.Sprintf("%s takes one run id, got %q", flags.Name(), flags.Args())}
	}
	return flags.Arg(0), nil
}

// parseFlags parses args with flags anywhere among them, as in
// `admin hide ID --reason TEXT`: Go's flag package stops at the first
// argument that is not a flag. Only names the set defines are flags, since
// a run id may itself begin with a dash (-aAd2pYvvc_WgRmB); everything
// after "--" is an argument.
func parseFlags(flags *flag.FlagSet, args []string) error {
	var named, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i+1:]...)
			break
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := flags.Lookup(name)
		if !strings.HasPrefix(a, "-") || (f == nil && name != "h" && name != "help") {
			rest = append(rest, a)
			continue
		}
		named = append(named, a)
		if f != nil && !hasValue && !isBoolFlag(f) && i+1 < len(args) {
			named = append(named, args[i+1])
			i++
		}
	}
	if err := flags.Parse(append(append(named, "--"), rest...)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &usageError{err.Error()}
	}
	return nil
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// helpOrUsage is nil for --help, whose answer the flag set printed.
func helpOrUsage(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return errHelped
	}
	return err
}

// errHelped ends a command whose --help was answered: exit code 0.
var errHelped = &exitError{0, errors.New("")}

// withAdminStore opens the database at db for an admin command, runs f,
// and closes it. A SQLite file that does not exist is an error here, not a
// new empty database: a mistyped path must not look like "no such run".
func withAdminStore(db string, f func(context.Context, adminStore) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), adminTimeout)
	defer cancel()
	if !isPostgres(db) {
		if _, err := os.Stat(db); err != nil {
			return fmt.Errorf("no database at %s (give the server's --db, or set FENCELAB_DB): %w", db, err)
		}
	}
	opened, err := openStore(ctx, db)
	if err != nil {
		return fmt.Errorf("cannot open the database %s for writing: %w", redact(db), err)
	}
	defer opened.Close()
	s, ok := opened.(adminStore)
	if !ok {
		return fmt.Errorf("the database %s cannot hide runs", redact(db))
	}
	return f(ctx, s)
}

// runError says what an unknown id is, with its own exit code.
func runError(id string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return &exitError{exitNoRun, fmt.Errorf("no saved run has the id %q (fencelab admin list shows the newest)", id)}
	}
	return err
}
