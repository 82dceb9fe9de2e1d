package sqlite

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

func sampleRun(id string) Run {
	return Run{
		ID:            id,
		Title:         "Two clients, one lease",
		Scenario:      []byte(`{"name":"lease","events":[{"kind":"write","client":"a"}]}`),
		Trace:         []byte(`{"steps":[{"decision":"accepted"}]}`),
		EngineVersion: "v0.1.0",
		CreatedAt:     time.Date(2026, 11, 29, 9, 30, 15, 0, time.UTC),
	}
}

// withRun returns sampleRun(id) changed by edit.
func withRun(id string, edit func(*Run)) Run {
	r := sampleRun(id)
	edit(&r)
	return r
}

func TestSaveRunThenRun(t *testing.T) {
	cet := time.FixedZone("CET", 3600)
	tests := []struct {
		name string
		in   Run
		want Run // the stored row: UTC, whole seconds
	}{
		{"plain", sampleRun("r1"), sampleRun("r1")},
		{
			"unicode title and minimal JSON",
			Run{ID: "r-ü", Title: "Fencing ⚔ «tokens»", Scenario: []byte(`{}`), Trace: []byte(`[]`),
				EngineVersion: "dev", CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
			Run{ID: "r-ü", Title: "Fencing ⚔ «tokens»", Scenario: []byte(`{}`), Trace: []byte(`[]`),
				EngineVersion: "dev", CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		},
		{
			"local time with nanoseconds stored as UTC seconds",
			withRun("r3", func(r *Run) { r.CreatedAt = time.Date(2026, 6, 1, 12, 0, 0, 999_999_999, cet) }),
			withRun("r3", func(r *Run) { r.CreatedAt = time.Date(2026, 6, 1, 11, 0, 0, 0, time.UTC) }),
		},
		{
			"empty title",
			withRun("r4", func(r *Run) { r.Title = "" }),
			withRun("r4", func(r *Run) { r.Title = "" }),
		},
	}
	db, _ := open(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			saved, err := db.SaveRun(t.Context(), tt.in)
			if err != nil {
				t.Fatalf("SaveRun(%q) error = %v, want nil", tt.in.ID, err)
			}
			if diff := cmp.Diff(tt.want, saved); diff != "" {
				t.Errorf("SaveRun(%q) mismatch (-want +got):\n%s", tt.in.ID, diff)
			}
			got, err := db.Run(t.Context(), tt.in.ID)
			if err != nil {
				t.Fatalf("Run(%q) error = %v, want nil", tt.in.ID, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Run(%q) mismatch (-want +got):\n%s", tt.in.ID, diff)
			}
			if got.CreatedAt.Location() != time.UTC {
				t.Errorf("Run(%q).CreatedAt location = %v, want UTC", tt.in.ID, got.CreatedAt.Location())
			}
		})
	}
}

func TestSaveRunZeroCreatedAtIsNow(t *testing.T) {
	db, _ := open(t)
	r := sampleRun("now")
	r.CreatedAt = time.Time{}
	before := time.Now().Truncate(time.Second)
	got, err := db.SaveRun(t.Context(), r)
	if err != nil {
		t.Fatalf("SaveRun(%q) error = %v, want nil", r.ID, err)
	}
	if after := time.Now(); got.CreatedAt.Before(before) || got.CreatedAt.After(after) {
		t.Errorf("SaveRun(%q).CreatedAt = %v, want between %v and %v", r.ID, got.CreatedAt, before, after)
	}
}

func TestSaveRunSameIDKeepsFirst(t *testing.T) {
	db, _ := open(t)
	first := sampleRun("same")
	second := Run{ID: "same", Title: "other", Scenario: []byte(`{"other":true}`), Trace: []byte(`{"x":1}`),
		EngineVersion: "v9", CreatedAt: first.CreatedAt.Add(time.Hour)}
	if _, err := db.SaveRun(t.Context(), first); err != nil {
		t.Fatalf("SaveRun(first) error = %v, want nil", err)
	}
	got, err := db.SaveRun(t.Context(), second)
	if err != nil {
		t.Fatalf("SaveRun(second, same ID) error = %v, want nil", err)
	}
	if diff := cmp.Diff(first, got); diff != "" {
		t.Errorf("SaveRun(second, same ID) returned (-want first +got):\n%s", diff)
	}
	stored, err := db.Run(t.Context(), "same")
	if err != nil {
		t.Fatalf("Run(%q) error = %v, want nil", "same", err)
	}
	if diff := cmp.Diff(first, stored); diff != "" {
		t.Errorf("Run(%q) after a second save (-want first +got):\n%s", "same", diff)
	}
}

func TestSaveRunRejects(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Run)
	}{
		{"empty ID", func(r *Run) { r.ID = "" }},
		{"scenario not JSON", func(r *Run) { r.Scenario = []byte(`{"events":`) }},
		{"nil scenario", func(r *Run) { r.Scenario = nil }},
		{"trace not JSON", func(r *Run) { r.Trace = []byte(`steps`) }},
	}
	db, _ := open(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sampleRun("bad")
			tt.edit(&r)
			if got, err := db.SaveRun(t.Context(), r); err == nil {
				t.Errorf("SaveRun(%+v) = %+v, nil; want an error", r, got)
			}
			if _, err := db.Run(t.Context(), r.ID); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Run(%q) after a refused save: error = %v, want store.ErrNotFound", r.ID, err)
			}
		})
	}
}

func TestRunNotFound(t *testing.T) {
	db, _ := open(t)
	if _, err := db.SaveRun(t.Context(), sampleRun("exists")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id   string
		want error
	}{
		{"exists", nil},
		{"missing", store.ErrNotFound},
		{"", store.ErrNotFound},
		{"EXISTS", store.ErrNotFound}, // IDs are case-sensitive
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.id), func(t *testing.T) {
			if _, err := db.Run(t.Context(), tt.id); !errIs(err, tt.want) {
				t.Errorf("Run(%q) error = %v, want %v", tt.id, err, tt.want)
			}
		})
	}
}

func TestSaveRunConcurrent(t *testing.T) {
	db, _ := open(t)
	const n = 20
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			// Half the goroutines race on one shared ID.
			id := fmt.Sprintf("run-%02d", i)
			if i%2 == 0 {
				id = "shared"
			}
			_, errs[i] = db.SaveRun(t.Context(), sampleRun(id))
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: SaveRun error = %v, want nil", i, err)
		}
	}
	var count int
	if err := db.read.QueryRow(`SELECT COUNT(*) FROM runs`).Scan(&count); err != nil {
		t.Fatal(err)
	}
	if want := n/2 + 1; count != want {
		t.Errorf("rows in runs after %d concurrent saves = %d, want %d", n, count, want)
	}
}

func TestSecret(t *testing.T) {
	db, path := open(t)
	first, err := db.Secret(t.Context())
	if err != nil {
		t.Fatalf("Secret() error = %v, want nil", err)
	}
	if len(first) != 32 || bytes.Equal(first, make([]byte, 32)) {
		t.Fatalf("Secret() = %x, want 32 random bytes", first)
	}
	again, err := db.Secret(t.Context())
	if err != nil || !bytes.Equal(again, first) {
		t.Errorf("second Secret() = %x, %v; want %x, nil", again, err, first)
	}
	db.Close()
	db, err = Open(path)
	if err != nil {
		t.Fatalf("Open(%q) error = %v", path, err)
	}
	defer db.Close()
	reopened, err := db.Secret(t.Context())
	if err != nil || !bytes.Equal(reopened, first) {
		t.Errorf("Secret() after reopen = %x, %v; want %x, nil", reopened, err, first)
	}
	other, _ := open(t)
	fresh, err := other.Secret(t.Context())
	if err != nil || bytes.Equal(fresh, first) {
		t.Errorf("Secret() of another database = %x, %v; want different bytes from %x", fresh, err, first)
	}
}

func TestSecretConcurrentFirstCalls(t *testing.T) {
	db, _ := open(t)
	const n = 8
	got := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { got[i], errs[i] = db.Secret(t.Context()) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || !bytes.Equal(got[i], got[0]) {
			t.Errorf("concurrent Secret() #%d = %x, %v; want %x, nil", i, got[i], errs[i], got[0])
		}
	}
}
