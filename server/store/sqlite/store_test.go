package sqlite

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fencelab/server/store"
	"fencelab/server/store/storetest"
)

// TestStore runs the store contract on SQLite files. Several stores on
// one file stand for several processes; a failing database is one whose
// file another process keeps locked for longer than the busy timeout.
func TestStore(t *testing.T) {
	storetest.TestStore(t, storetest.Harness{Fresh: freshFile, FreshFailing: freshFileShortBusy})
}

func TestRoomStore(t *testing.T) {
	storetest.TestRooms(t, storetest.Harness{Fresh: freshFile})
}

// freshFileShortBusy waits 200 ms, not 5 s, for a locked file, so that
// the test of a failing database is quick.
func freshFileShortBusy(t *testing.T) storetest.Database {
	saved := writeParams
	writeParams = strings.Replace(writeParams, "_busy_timeout=5000", "_busy_timeout=200", 1)
	t.Cleanup(func() { writeParams = saved })
	if writeParams == saved {
		t.Fatalf("writeParams %q has no busy timeout of 5000 to shorten", saved)
	}
	return freshFile(t)
}

func freshFile(t *testing.T) storetest.Database {
	path := filepath.Join(t.TempDir(), "fencelab.db")
	return storetest.Database{
		Open: func() (store.Runs, error) {
			db, err := Open(path)
			if err == nil {
				t.Cleanup(func() { db.Close() })
			}
			return db, err
		},
		Break: func() func() { return lockFile(t, path) },
	}
}

// lockFile takes the file's write lock from another connection, as a
// stuck process would, and returns what gives it back.
func lockFile(t *testing.T, path string) func() {
	t.Helper()
	other, err := sql.Open("sqlite3", dsn(path, "_txlock=immediate"))
	if err != nil {
		t.Fatal(err)
	}
	tx, err := other.Begin()
	if err != nil {
		t.Fatalf("take the write lock: %v", err)
	}
	return func() {
		tx.Rollback()
		other.Close()
	}
}

// TestPingReplacedFile: a database file moved away under the server makes
// it not ready, since its saves fail; moved back, it is ready again.
func TestPingReplacedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fencelab.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Ping(t.Context()); err != nil {
		t.Fatalf("Ping() = %v, want nil", err)
	}
	if err := os.Rename(path, path+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(t.Context()); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Ping() with the file moved away = %v, want store.ErrUnavailable", err)
	}
	if err := os.Rename(path+".moved", path); err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(t.Context()); err != nil {
		t.Errorf("Ping() with the file back = %v, want nil", err)
	}
}

func TestTakedowns(t *testing.T) {
	storetest.TestTakedowns(t, storetest.Harness{Fresh: freshFile})
}

func TestPurge(t *testing.T) {
	storetest.TestPurge(t, storetest.Harness{Fresh: freshFile})
}
