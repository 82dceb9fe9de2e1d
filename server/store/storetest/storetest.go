// Package storetest is the contract every store.Runs adapter passes, run
// by each adapter's tests against a real database.
package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"fencelab/server/store"
)

// Harness is what an adapter's test gives the contract.
type Harness struct {
	// Fresh creates a fresh, empty database for one test and removes it
	// at the end of the test.
	Fresh func(t *testing.T) Database
	// FreshFailing, if set, is Fresh for the test that breaks the
	// database: an adapter may wait less there for a database that does
	// not answer than it should when it is only busy.
	FreshFailing func(t *testing.T) Database
}

// Database is one database, opened as often as a test needs, as several
// servers would.
type Database struct {
	// Open opens another store on the database, closed at the end of the
	// test. It may run on several goroutines at once.
	Open func() (store.Runs, error)
	// Break makes the database fail, as when it is down or stays locked,
	// until restore is called.
	Break func() (restore func())
}

// TestStore runs the whole contract.
func TestStore(t *testing.T, h Harness) {
	t.Run("SaveThenRun", func(t *testing.T) { testSaveThenRun(t, h) })
	t.Run("ZeroCreatedAtIsNow", func(t *testing.T) { testZeroCreatedAt(t, h) })
	t.Run("SameIDKeepsFirst", func(t *testing.T) { testSameIDKeepsFirst(t, h) })
	t.Run("NotFound", func(t *testing.T) { testNotFound(t, h) })
	t.Run("ConcurrentOpen", func(t *testing.T) { testConcurrentOpen(t, h) })
	t.Run("ConcurrentSaves", func(t *testing.T) { testConcurrentSaves(t, h) })
	t.Run("Secret", func(t *testing.T) { testSecret(t, h) })
	t.Run("SecretRace", func(t *testing.T) { testSecretRace(t, h) })
	t.Run("Unavailable", func(t *testing.T) { testUnavailable(t, h) })
}

// Sample is a valid run with the given id, as the server would save it.
func Sample(id string) store.Run {
	return store.Run{
		ID:            id,
		Title:         "Two clients, one lease",
		Scenario:      []byte(`{"name":"lease","events":[{"kind":"write","client":"a"}]}`),
		Trace:         []byte(`{"steps":[{"decision":"accepted"}]}`),
		EngineVersion: "v0.1.0",
		CreatedAt:     time.Date(2026, 11, 29, 9, 30, 15, 0, time.UTC),
	}
}

func open(t *testing.T, db Database) store.Runs {
	t.Helper()
	s, err := db.Open()
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	return s
}

func save(t *testing.T, s store.Runs, r store.Run) store.Run {
	t.Helper()
	got, err := s.SaveRun(t.Context(), r)
	if err != nil {
		t.Fatalf("SaveRun(%q) error = %v, want nil", r.ID, err)
	}
	return got
}

func testSaveThenRun(t *testing.T, h Harness) {
	s := open(t, h.Fresh(t))
	cet := time.FixedZone("CET", 3600)
	tests := []struct {
		name string
		in   store.Run
		want store.Run // the stored row: UTC, whole seconds
	}{
		{"plain", Sample("r1"), Sample("r1")},
		{"local time with nanoseconds", with(Sample("r2"), func(r *store.Run) {
			r.CreatedAt = time.Date(2026, 11, 29, 10, 30, 15, 999, cet)
		}), Sample("r2")},
		{"unicode and empty JSON", store.Run{ID: "r-ü", Title: "Fencing ⚔ «tokens»", Scenario: []byte(`{}`),
			Trace: []byte(`[]`), EngineVersion: "v9", CreatedAt: Sample("x").CreatedAt},
			store.Run{ID: "r-ü", Title: "Fencing ⚔ «tokens»", Scenario: []byte(`{}`),
				Trace: []byte(`[]`), EngineVersion: "v9", CreatedAt: Sample("x").CreatedAt}},
		{"with what a probe observed", with(Sample("r3"), func(r *store.Run) {
			r.Observed = []byte(`{"verdict":"disagree","steps":[{"index":8}]}`)
		}), with(Sample("r3"), func(r *store.Run) {
			r.Observed = []byte(`{"verdict":"disagree","steps":[{"index":8}]}`)
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, save(t, s, tt.in)); diff != "" {
				t.Errorf("SaveRun(%q) returned (-want +got):\n%s", tt.in.ID, diff)
			}
			got, err := s.Run(t.Context(), tt.in.ID)
			if err != nil {
				t.Fatalf("Run(%q) error = %v", tt.in.ID, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Run(%q) (-want +got):\n%s", tt.in.ID, diff)
			}
		})
	}
}

func with(r store.Run, edit func(*store.Run)) store.Run {
	edit(&r)
	return r
}

func testZeroCreatedAt(t *testing.T, h Harness) {
	s := open(t, h.Fresh(t))
	before := time.Now().Add(-time.Second)
	got := save(t, s, with(Sample("now"), func(r *store.Run) { r.CreatedAt = time.Time{} }))
	if got.CreatedAt.Before(before) || got.CreatedAt.After(time.Now()) || got.CreatedAt.Location() != time.UTC {
		t.Errorf("SaveRun with zero CreatedAt stored %v, want now in UTC", got.CreatedAt)
	}
}

func testSameIDKeepsFirst(t *testing.T, h Harness) {
	s := open(t, h.Fresh(t))
	first := save(t, s, Sample("same"))
	second := store.Run{ID: "same", Title: "other", Scenario: []byte(`{"other":true}`),
		Trace: []byte(`{"x":1}`), EngineVersion: "v2", CreatedAt: first.CreatedAt.Add(time.Hour)}
	if diff := cmp.Diff(first, save(t, s, second)); diff != "" {
		t.Errorf("second SaveRun(%q) returned (-first +got):\n%s", second.ID, diff)
	}
	got, err := s.Run(t.Context(), "same")
	if err != nil || !cmp.Equal(first, got) {
		t.Errorf("Run(%q) after a second save = %+v, %v; want the first, nil", "same", got, err)
	}
}

func testNotFound(t *testing.T, h Harness) {
	s := open(t, h.Fresh(t))
	save(t, s, Sample("exists"))
	tests := []struct {
		id   string
		want error
	}{
		{"exists", nil},
		{"missing", store.ErrNotFound},
		{"", store.ErrNotFound},
		{"EXISTS", store.ErrNotFound}, // ids are case-sensitive
		{"exists ", store.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.id), func(t *testing.T) {
			_, err := s.Run(t.Context(), tt.id)
			if (tt.want == nil && err != nil) || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Errorf("Run(%q) error = %v, want %v", tt.id, err, tt.want)
			}
		})
	}
}

// testConcurrentOpen starts several servers on one fresh database at once:
// the migrations run once and every store works.
func testConcurrentOpen(t *testing.T, h Harness) {
	db := h.Fresh(t)
	const n = 4
	stores := make([]store.Runs, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { stores[i], errs[i] = db.Open() })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("concurrent open #%d: %v", i, errs[i])
		}
	}
	save(t, stores[0], Sample("opened"))
	for i, s := range stores {
		if _, err := s.Run(t.Context(), "opened"); err != nil {
			t.Errorf("store #%d: Run(%q) error = %v, want nil", i, "opened", err)
		}
	}
}

// testConcurrentSaves saves from two stores on one database at once, as
// two servers would: every save succeeds, all saves of one ID return the
// same row, and every run can be read through either store.
func testConcurrentSaves(t *testing.T, h Harness) {
	db := h.Fresh(t)
	stores := []store.Runs{open(t, db), open(t, db)}
	const n = 32
	got := make([]store.Run, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r := Sample(fmt.Sprintf("run-%02d", i))
			if i%2 == 0 { // half race on one ID, each with its own title
				r = with(Sample("shared"), func(r *store.Run) { r.Title = fmt.Sprint("title ", i) })
			}
			got[i], errs[i] = stores[i%4/2].SaveRun(t.Context(), r)
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("concurrent SaveRun #%d error = %v, want nil", i, errs[i])
		}
	}
	for i := 2; i < n; i += 2 {
		if diff := cmp.Diff(got[0], got[i]); diff != "" {
			t.Errorf("concurrent saves of %q #0 and #%d returned different rows (-#0 +#%d):\n%s", "shared", i, i, diff)
		}
	}
	for i := 1; i < n; i += 2 {
		for j, s := range stores {
			if r, err := s.Run(t.Context(), got[i].ID); err != nil || !cmp.Equal(r, got[i]) {
				t.Errorf("store %d: Run(%q) = %+v, %v; want the saved row", j, got[i].ID, r, err)
			}
		}
	}
	for j, s := range stores {
		if r, err := s.Run(t.Context(), "shared"); err != nil || !cmp.Equal(r, got[0]) {
			t.Errorf("store %d: Run(%q) = %+v, %v; want the row all savers got", j, "shared", r, err)
		}
	}
}

func testSecret(t *testing.T, h Harness) {
	db := h.Fresh(t)
	a := open(t, db)
	first, err := a.Secret(t.Context())
	if err != nil {
		t.Fatalf("Secret() error = %v, want nil", err)
	}
	if len(first) != 32 || bytes.Equal(first, make([]byte, 32)) {
		t.Fatalf("Secret() = %x, want 32 random bytes", first)
	}
	if again, err := a.Secret(t.Context()); err != nil || !bytes.Equal(again, first) {
		t.Errorf("second Secret() = %x, %v; want %x, nil", again, err, first)
	}
	if other, err := open(t, db).Secret(t.Context()); err != nil || !bytes.Equal(other, first) {
		t.Errorf("Secret() of another store on the same database = %x, %v; want %x, nil", other, err, first)
	}
	if fresh, err := open(t, h.Fresh(t)).Secret(t.Context()); err != nil || bytes.Equal(fresh, first) {
		t.Errorf("Secret() of another database = %x, %v; want bytes other than %x", fresh, err, first)
	}
}

// testSecretRace asks for the secret of a fresh database from several
// stores at once, as servers starting together do: one secret is created
// and all of them get it.
func testSecretRace(t *testing.T, h Harness) {
	db := h.Fresh(t)
	stores := []store.Runs{open(t, db), open(t, db), open(t, db)}
	const n = 12
	got := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { got[i], errs[i] = stores[i%len(stores)].Secret(t.Context()) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || len(got[i]) != 32 || !bytes.Equal(got[i], got[0]) {
			t.Errorf("concurrent Secret() #%d = %x, %v; want %x, nil", i, got[i], errs[i], got[0])
		}
	}
}
