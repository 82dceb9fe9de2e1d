package sqlite

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// open opens a fresh database file in t.TempDir(), never ":memory:": each
// pooled connection would get its own empty in-memory database.
func open(t *testing.T) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fencelab.db")
	db, err := Open(path)
	if err != nil {
		t.Fatalf("Open(%q) error = %v, want nil", path, err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

func TestOpenReopenIsIdempotent(t *testing.T) {
	db, path := open(t)
	want := sampleRun("keep-me")
	if _, err := db.SaveRun(t.Context(), want); err != nil {
		t.Fatalf("SaveRun(%q) error = %v", want.ID, err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("Close() error = %v", err)
	}
	files, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		db, err := Open(path)
		if err != nil {
			t.Fatalf("Open(%q) #%d error = %v, want nil", path, i+2, err)
		}
		var n int
		if err := db.read.QueryRow(`SELECT COUNT(*) FROM migrations`).Scan(&n); err != nil {
			t.Fatalf("count migrations after open #%d: %v", i+2, err)
		}
		if n != len(files) {
			t.Errorf("after open #%d: migrations rows = %d, want %d", i+2, n, len(files))
		}
		if _, err := db.Run(t.Context(), want.ID); err != nil {
			t.Errorf("after open #%d: Run(%q) error = %v, want nil", i+2, want.ID, err)
		}
		db.Close()
	}
}

func TestOpenPragmas(t *testing.T) {
	db, _ := open(t)
	tests := []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"synchronous", "2"}, // FULL
		{"busy_timeout", "5000"},
		{"foreign_keys", "1"},
	}
	for _, tt := range tests {
		t.Run(tt.pragma, func(t *testing.T) {
			var got string
			if err := db.write.QueryRow("PRAGMA " + tt.pragma).Scan(&got); err != nil {
				t.Fatalf("PRAGMA %s error = %v", tt.pragma, err)
			}
			if got != tt.want {
				t.Errorf("PRAGMA %s = %q, want %q", tt.pragma, got, tt.want)
			}
		})
	}
}

func TestOpenEscapesPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "odd?dir#100%")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "fencelab.db")
	db, err := Open(path)
	if err != nil {
		t.Fatalf("Open(%q) error = %v, want nil", path, err)
	}
	defer db.Close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("Open(%q) created no file there: %v", path, err)
	}
}

func TestErrorsInsteadOfPanics(t *testing.T) {
	closed, _ := open(t)
	closed.Close()
	ctx := t.Context()
	tests := []struct {
		name string
		call func() error
	}{
		{"SaveRun on closed DB", func() error { _, err := closed.SaveRun(ctx, sampleRun("x")); return err }},
		{"Run on closed DB", func() error { _, err := closed.Run(ctx, "x"); return err }},
		{"Secret on closed DB", func() error { _, err := closed.Secret(ctx); return err }},
		{"Open with empty path", func() error { _, err := Open(""); return err }},
		{"Open under a regular file", func() error {
			file := filepath.Join(t.TempDir(), "file")
			if err := os.WriteFile(file, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Open(filepath.Join(file, "fencelab.db"))
			return err
		}},
		{"Open a file that is not SQLite", func() error {
			file := filepath.Join(t.TempDir(), "notes.txt")
			if err := os.WriteFile(file, bytes.Repeat([]byte("not a database\n"), 100), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Open(file)
			return err
		}},
		{"write through the read-only pool", func() error {
			db, _ := open(t)
			_, err := db.read.Exec(`INSERT INTO settings (key, value) VALUES ('k', x'00')`)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); err == nil {
				t.Errorf("%s: error = nil, want an error", tt.name)
			}
		})
	}
}

// TestOpenReadOnlyFile checks that Open refuses a file it may not write
// rather than failing every later save. Root ignores file modes, so the test
// skips as root; run the test binary as another user to exercise it.
func TestOpenReadOnlyFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("file modes do not bind root")
	}
	tests := []struct {
		name     string
		dirMode  os.FileMode
		fileMode os.FileMode
	}{
		{"read-only file in a writable directory", 0o755, 0o444},
		{"read-only file in a read-only directory", 0o555, 0o444},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, path := open(t)
			db.Close()
			dir := filepath.Dir(path)
			t.Cleanup(func() { os.Chmod(dir, 0o755) }) // so TempDir can be removed
			if err := os.Chmod(path, tt.fileMode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, tt.dirMode); err != nil {
				t.Fatal(err)
			}
			if db, err := Open(path); err == nil {
				db.Close()
				t.Errorf("Open(%q) with file mode %v, directory mode %v: error = nil, want an error",
					path, tt.fileMode, tt.dirMode)
			}
		})
	}
}

// errIs reports whether err matches a table's want: errors.Is, or nil for nil.
func errIs(err, want error) bool {
	if want == nil {
		return err == nil
	}
	return errors.Is(err, want)
}

// TestBackupRemovesStalePartials: the partial copy a backup killed with
// -9 left beside its target is removed by the next backup to the same
// path once it is old; a fresh one (a backup still writing) and another
// target's are left alone.
func TestBackupRemovesStalePartials(t *testing.T) {
	_, path := open(t)
	dir := filepath.Dir(path)
	out := filepath.Join(dir, "copy.db")
	stale := filepath.Join(dir, ".copy.db.123.partial")
	fresh := filepath.Join(dir, ".copy.db.456.partial")
	other := filepath.Join(dir, ".other.db.789.partial")
	for _, f := range []string{stale, fresh, other} {
		if err := os.WriteFile(f, []byte("half a copy"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(stale, old, old)
	os.Chtimes(other, old, old)
	if err := Backup(t.Context(), path, out); err != nil {
		t.Fatal(err)
	}
	for f, kept := range map[string]bool{stale: false, fresh: true, other: true, out: true} {
		if _, err := os.Stat(f); (err == nil) != kept {
			t.Errorf("after the backup, %s exists = %v, want %v", filepath.Base(f), err == nil, kept)
		}
	}
}
