package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"fencelab/server/store"
)

// holdWriter makes the writer's next group wait until release is called,
// and reports through taken when the writer has taken that group.
func holdWriter(t *testing.T, db *DB) (taken <-chan struct{}, release func()) {
	t.Helper()
	took, gate := make(chan struct{}), make(chan struct{})
	var once sync.Once
	check := db.writer.check
	db.writer.check = func() error {
		once.Do(func() { close(took); <-gate })
		return check()
	}
	var rel sync.Once
	release = func() { rel.Do(func() { close(gate) }) }
	t.Cleanup(release)
	return took, release
}

func countRuns(t *testing.T, db *DB) int {
	t.Helper()
	var n int
	if err := db.read.QueryRow(`SELECT COUNT(*) FROM runs`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSaveRunGroupCommit checks that saves queued behind a commit go into
// one transaction together, and that each is answered with its own row.
func TestSaveRunGroupCommit(t *testing.T) {
	db, _ := open(t)
	var groups atomic.Int32
	check := db.writer.check
	db.writer.check = func() error { groups.Add(1); return check() }
	taken, release := holdWriter(t, db)

	const n = 40
	var wg sync.WaitGroup
	errs := make([]error, n)
	got := make([]Run, n)
	wg.Go(func() { got[0], errs[0] = db.SaveRun(t.Context(), sampleRun("run-00")) })
	<-taken
	for i := 1; i < n; i++ {
		wg.Go(func() { got[i], errs[i] = db.SaveRun(t.Context(), sampleRun(fmt.Sprintf("run-%02d", i))) })
	}
	waitQueued(t, db, n-1)
	release()
	wg.Wait()
	for i := range n {
		if want := fmt.Sprintf("run-%02d", i); errs[i] != nil || got[i].ID != want {
			t.Errorf("SaveRun(%q) = %q, %v; want %q, nil", want, got[i].ID, errs[i], want)
		}
	}
	if g := groups.Load(); g != 2 {
		t.Errorf("%d saves, the last %d queued behind the first: committed in %d groups, want 2", n, n-1, g)
	}
	if c := countRuns(t, db); c != n {
		t.Errorf("rows after %d saves = %d, want %d", n, c, n)
	}
}

// TestSaveRunGroupBytes: large runs queued together are committed in
// groups of about maxBatchBytes, and ObserveGroups is told each group's
// size: one client's large runs must not make one long commit.
func TestSaveRunGroupBytes(t *testing.T) {
	db, _ := open(t)
	var sizes []int
	var mu sync.Mutex
	db.ObserveGroups(func(n int) { mu.Lock(); sizes = append(sizes, n); mu.Unlock() })
	taken, release := holdWriter(t, db)
	big := `{"steps":["` + strings.Repeat("x", 1<<20) + `"]}` // 1 MiB of trace
	const n = 9
	var wg sync.WaitGroup
	errs := make([]error, n)
	wg.Go(func() { _, errs[0] = db.SaveRun(t.Context(), sampleRun("run-0")) })
	<-taken
	for i := 1; i < n; i++ {
		wg.Go(func() {
			_, errs[i] = db.SaveRun(t.Context(), withRun(fmt.Sprint("run-", i), func(r *Run) { r.Trace = []byte(big) }))
		})
	}
	waitQueued(t, db, n-1)
	release()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("SaveRun(run-%d) = %v, want nil", i, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []int{1, 4, 4}; !slices.Equal(sizes, want) {
		t.Errorf("a small save, then 8 runs of 1 MiB queued behind it: groups of %v, want %v (4 MiB a group)", sizes, want)
	}
}

// waitQueued waits until n saves wait in the writer's queue.
func waitQueued(t *testing.T, db *DB, n int) {
	t.Helper()
	for len(db.writer.queue) < n {
		if t.Context().Err() != nil {
			t.Fatalf("queue never reached %d saves", n)
		}
		runtimeGosched()
	}
}

// TestSaveRunCanceledWhileQueued checks that a save whose caller went away
// before the writer took it is not stored, while one already taken is
// stored and answered.
func TestSaveRunCanceledWhileQueued(t *testing.T) {
	db, _ := open(t)
	taken, release := holdWriter(t, db)

	takenCtx, cancelTaken := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	var takenErr error
	var takenRun Run
	wg.Go(func() { takenRun, takenErr = db.SaveRun(takenCtx, sampleRun("taken")) })
	<-taken
	queuedCtx, cancelQueued := context.WithCancel(t.Context())
	var queuedErr error
	wg.Go(func() { _, queuedErr = db.SaveRun(queuedCtx, sampleRun("queued")) })
	waitQueued(t, db, 1)
	cancelTaken()
	cancelQueued()
	release()
	wg.Wait()

	if takenErr != nil || takenRun.ID != "taken" {
		t.Errorf("SaveRun(taken), canceled after the writer took it = %q, %v; want it stored and answered", takenRun.ID, takenErr)
	}
	if !errors.Is(queuedErr, context.Canceled) {
		t.Errorf("SaveRun(queued), canceled while queued: error = %v, want context.Canceled", queuedErr)
	}
	if _, err := db.Run(t.Context(), "queued"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Run(queued) after its caller went away: error = %v, want ErrNotFound", err)
	}
	if _, err := db.Run(t.Context(), "taken"); err != nil {
		t.Errorf("Run(taken) error = %v, want the stored run", err)
	}
}

// TestSaveRunGroupWithARefusedSave checks that one refused save in a group
// leaves the others stored.
func TestSaveRunGroupWithARefusedSave(t *testing.T) {
	db, _ := open(t)
	taken, release := holdWriter(t, db)
	var wg sync.WaitGroup
	wg.Go(func() { db.SaveRun(t.Context(), sampleRun("first")) })
	<-taken
	runs := []Run{sampleRun("a"), withRun("bad", func(r *Run) { r.Trace = []byte("steps") }), sampleRun("b")}
	errs := make([]error, len(runs))
	for i, r := range runs {
		wg.Go(func() { _, errs[i] = db.SaveRun(t.Context(), r) })
		waitQueued(t, db, i+1)
	}
	release()
	wg.Wait()
	for i, r := range runs {
		if wantErr := r.ID == "bad"; (errs[i] != nil) != wantErr {
			t.Errorf("SaveRun(%q) in a group error = %v, want error: %v", r.ID, errs[i], wantErr)
		}
	}
	if c := countRuns(t, db); c != 3 {
		t.Errorf("rows after a group of 3 good saves and a bad one = %d, want 3", c)
	}
}

func TestSaveRunAfterClose(t *testing.T) {
	db, _ := open(t)
	db.Close()
	if _, err := db.SaveRun(t.Context(), sampleRun("late")); !errors.Is(err, ErrClosed) {
		t.Errorf("SaveRun after Close: error = %v, want ErrClosed", err)
	}
}

// TestSaveRunDiskFull fills the file to its size limit, as a full disk
// would: the save fails with ErrFull and reads go on.
func TestSaveRunDiskFull(t *testing.T) {
	db, _ := open(t)
	if _, err := db.SaveRun(t.Context(), sampleRun("before")); err != nil {
		t.Fatal(err)
	}
	var pages int
	if err := db.write.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := db.write.Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
		t.Fatal(err)
	}
	big := withRun("big", func(r *Run) { r.Trace = []byte(`"` + strings.Repeat("x", 1<<20) + `"`) })
	if _, err := db.SaveRun(t.Context(), big); !errors.Is(err, store.ErrFull) {
		t.Errorf("SaveRun of 1 MiB into a full file: error = %v, want ErrFull", err)
	}
	if _, err := db.Run(t.Context(), "before"); err != nil {
		t.Errorf("Run(before) with the disk full: error = %v, want the run", err)
	}
}

// TestSaveRunFileReplaced checks that saves are refused once the file at
// the path is not the one opened, rather than acknowledged and lost.
func TestSaveRunFileReplaced(t *testing.T) {
	tests := []struct {
		name string
		do   func(path string) error
	}{
		{"deleted", os.Remove},
		{"moved away", func(path string) error { return os.Rename(path, path+".old") }},
		{"replaced", func(path string) error {
			other := filepath.Join(filepath.Dir(path), "other.db")
			if err := os.WriteFile(other, nil, 0o600); err != nil {
				return err
			}
			return os.Rename(other, path)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, path := open(t)
			if _, err := db.SaveRun(t.Context(), sampleRun("before")); err != nil {
				t.Fatal(err)
			}
			if err := tt.do(path); err != nil {
				t.Fatal(err)
			}
			if _, err := db.SaveRun(t.Context(), sampleRun("after")); !errors.Is(err, ErrReplaced) {
				t.Errorf("SaveRun after the file was %s: error = %v, want ErrReplaced", tt.name, err)
			}
		})
	}
}

func TestOpenCreatesOwnerOnlyFile(t *testing.T) {
	db, path := open(t)
	if _, err := db.SaveRun(t.Context(), sampleRun("x")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if mode := fi.Mode().Perm(); mode != 0o600 {
			t.Errorf("mode of %s = %v, want -rw-------", filepath.Base(p), mode)
		}
	}
}

// TestOpenReadOnlyDirectory checks that a directory where the file cannot
// be created says so. As root, file modes do not bind: run the test binary
// as another user to exercise it.
func TestOpenReadOnlyDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("file modes do not bind root")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	path := filepath.Join(dir, "fencelab.db")
	db, err := Open(path)
	if err == nil {
		db.Close()
		t.Fatalf("Open(%q) in a read-only directory: error = nil, want one", path)
	}
	if !strings.Contains(err.Error(), "not writable") || strings.Contains(err.Error(), "no such file") {
		t.Errorf("Open(%q) in a read-only directory: error = %q, want it to say the directory is not writable", path, err)
	}
}

func runtimeGosched() { runtime.Gosched() }
