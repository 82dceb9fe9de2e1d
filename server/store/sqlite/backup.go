package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Backup writes a consistent copy of the database at path to out, which
// must not exist, while servers go on using the database. VACUUM INTO
// reads one snapshot in a read transaction, which in WAL mode blocks no
// writer: saves go on during the copy, and the copy holds exactly the
// runs committed before it began (its write-ahead log grows meanwhile and
// is folded back afterwards). The copy holds the link secret, so it is
// made readable by its owner only, written beside out and renamed into
// place once complete and on disk.
func Backup(ctx context.Context, path, out string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("back up %s: %w", path, err)
	}
	if _, err := os.Lstat(out); err == nil {
		return fmt.Errorf("back up to %s: the file exists; give a new path", out)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("back up to %s: %w", out, err)
	}
	removeStalePartials(out)
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*.partial")
	if err != nil {
		return fmt.Errorf("back up to %s: %w", out, err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name()) // gone once renamed; removes a failed copy
	if err := vacuumInto(ctx, path, tmp.Name()); err != nil {
		return fmt.Errorf("back up %s: %w", path, storeError(err))
	}
	if err := syncFile(tmp.Name()); err != nil {
		return fmt.Errorf("back up to %s: %w", out, err)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return fmt.Errorf("back up to %s: %w", out, err)
	}
	return syncFile(filepath.Dir(out)) // the rename itself
}

// stalePartial is how long a backup's partial copy must have been left
// untouched before another backup to the same path removes it: a copy
// being written is touched all the time.
const stalePartial = time.Minute

// removeStalePartials removes the partial copies that earlier backups to
// out left when they were killed (kill -9 runs no deferred Remove). They
// hold the link secret and, at a database's size, the disk.
func removeStalePartials(out string) {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "."+globEscape(filepath.Base(out))+".*.partial"))
	for _, m := range matches {
		if fi, err := os.Lstat(m); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > stalePartial {
			os.Remove(m)
		}
	}
}

// globEscape quotes the characters filepath.Match reads as a pattern.
func globEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`)
	return r.Replace(s)
}

// vacuumInto copies the database at path into the empty file out through
// a read-only connection of its own.
func vacuumInto(ctx context.Context, path, out string) error {
	db, err := sql.Open("sqlite3", dsn(path, readParams))
	if err != nil {
		return err
	}
	defer db.Close()
	if err := os.Chmod(out, 0o600); err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, `VACUUM INTO ?`, out)
	return err
}

// syncFile flushes a file, or a directory's entries, to the disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
