package storetest

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"fencelab/server/store"
)

// TestTakedowns is the contract of a store.Takedowns and store.Sizer: a
// run hidden through one store is hidden at once through another on the
// same database, as on another server; hiding an unknown id is
// ErrNotFound, and so is asking whether it is hidden; unhiding shows it again; the newest runs are listed first
// with their reasons; the size grows with saves.
func TestTakedowns(t *testing.T, h Harness) {
	db := h.Fresh(t)
	a, b := takedowns(t, db), takedowns(t, db)
	runs := open(t, db)
	for i := range 3 {
		save(t, runs, with(Sample(fmt.Sprint("run-", i)), func(r *store.Run) {
			r.CreatedAt = r.CreatedAt.Add(time.Duration(i) * time.Minute)
		}))
	}
	t.Run("HideAndUnhide", func(t *testing.T) { testHideAndUnhide(t, a, b) })
	t.Run("Unknown", func(t *testing.T) { testHideUnknown(t, a) })
	t.Run("Recent", func(t *testing.T) { testRecent(t, a, b) })
	t.Run("Size", func(t *testing.T) { testSize(t, runs, a) })
}

// takedowns is the store opened on db as a store.Takedowns.
func takedowns(t *testing.T, db Database) interface {
	store.Takedowns
	store.Sizer
} {
	t.Helper()
	s := open(t, db)
	td, ok := s.(store.Takedowns)
	sz, ok2 := s.(store.Sizer)
	if !ok || !ok2 {
		t.Fatal("the store cannot hide runs or tell its size (not a store.Takedowns and store.Sizer)")
	}
	return struct {
		store.Takedowns
		store.Sizer
	}{td, sz}
}

func testHideAndUnhide(t *testing.T, a, b store.Takedowns) {
	ctx := t.Context()
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	wantHidden(t, b, "run-1", "", false)
	if err := a.Hide(ctx, "run-1", "It named a person.", at); err != nil {
		t.Fatalf("Hide(run-1) = %v, want nil", err)
	}
	wantHidden(t, b, "run-1", "It named a person.", true)
	wantHidden(t, b, "run-0", "", false)
	if err := b.Hide(ctx, "run-1", "At the author's request.", at.Add(time.Minute)); err != nil {
		t.Fatalf("Hide(run-1) again = %v, want nil", err)
	}
	wantHidden(t, a, "run-1", "At the author's request.", true)
	if err := b.Unhide(ctx, "run-1"); err != nil {
		t.Fatalf("Unhide(run-1) = %v, want nil", err)
	}
	wantHidden(t, a, "run-1", "", false)
	if err := a.Unhide(ctx, "run-1"); err != nil {
		t.Errorf("Unhide(run-1) of a shown run = %v, want nil", err)
	}
}

func wantHidden(t *testing.T, s store.Takedowns, id, reason string, hidden bool) {
	t.Helper()
	gotReason, gotHidden, err := s.Hidden(t.Context(), id)
	if err != nil || gotReason != reason || gotHidden != hidden {
		t.Errorf("Hidden(%q) = %q, %v, %v; want %q, %v, nil", id, gotReason, gotHidden, err, reason, hidden)
	}
}

func testHideUnknown(t *testing.T, s store.Takedowns) {
	ctx := t.Context()
	if err := s.Hide(ctx, "no-such-run", "x", time.Now()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Hide(no-such-run) = %v, want ErrNotFound", err)
	}
	if err := s.Unhide(ctx, "no-such-run"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Unhide(no-such-run) = %v, want ErrNotFound", err)
	}
	if reason, hidden, err := s.Hidden(ctx, "no-such-run"); !errors.Is(err, store.ErrNotFound) || hidden || reason != "" {
		t.Errorf("Hidden(no-such-run) = %q, %v, %v; want ErrNotFound", reason, hidden, err)
	}
}

func testRecent(t *testing.T, a, b store.Takedowns) {
	ctx := t.Context()
	if err := a.Hide(ctx, "run-2", "Spam.", time.Now()); err != nil {
		t.Fatalf("Hide(run-2) = %v", err)
	}
	t.Cleanup(func() { a.Unhide(ctx, "run-2") })
	got, err := b.Recent(ctx, 2)
	if err != nil {
		t.Fatalf("Recent(2) = %v", err)
	}
	r := Sample("x")
	size := int64(len(r.Scenario) + len(r.Trace))
	want := []store.Listing{
		{ID: "run-2", Title: r.Title, CreatedAt: r.CreatedAt.Add(2 * time.Minute), Bytes: size, Reason: "Spam."},
		{ID: "run-1", Title: r.Title, CreatedAt: r.CreatedAt.Add(time.Minute), Bytes: size},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Recent(2) (-want +got):\n%s", diff)
	}
}

// testSize saves a megabyte of runs and wants the size to grow by at
// least half of it (a database may compress).
func testSize(t *testing.T, runs store.Runs, s store.Sizer) {
	before, err := s.Size(t.Context())
	if err != nil || before <= 0 {
		t.Fatalf("Size() = %d, %v; want a positive size", before, err)
	}
	for i := range 16 {
		// Unlike bytes, so that no database compresses them to nothing.
		var b strings.Builder
		for j := range 64 << 10 / 8 {
			fmt.Fprintf(&b, "%08x", (i*7919+j)*2654435761%(1<<32))
		}
		save(t, runs, with(Sample(fmt.Sprint("big-", i)), func(r *store.Run) { r.Title = b.String() }))
	}
	after, err := s.Size(t.Context())
	if err != nil || after-before < 512<<10 {
		t.Errorf("Size() after saving 1 MB = %d, %v; want at least %d", after, err, before+512<<10)
	}
}

// TestPurge is the contract of a store.Purger: runs are picked by the
// client that saved them (an address, or its whole /64, inside a prefix)
// and by time; a dry run deletes nothing; hidden runs are never purged,
// and stay hidden; the others are gone.
func TestPurge(t *testing.T, h Harness) {
	db := h.Fresh(t)
	runs := open(t, db)
	p, ok := runs.(store.Purger)
	td, ok2 := runs.(store.Takedowns)
	if !ok || !ok2 {
		t.Fatal("the store cannot purge or hide runs (not a store.Purger and store.Takedowns)")
	}
	ctx := t.Context()
	base := Sample("x").CreatedAt
	clients := []string{"198.51.100.1", "198.51.100.2", "203.0.113.5", "2001:db8:1:2::/64", ""}
	for i, c := range clients {
		save(t, runs, with(Sample(fmt.Sprint("purge-", i)), func(r *store.Run) {
			r.Client = c
			r.CreatedAt = base.Add(time.Duration(i) * time.Hour)
		}))
	}
	if err := td.Hide(ctx, "purge-1", "Hidden first.", base); err != nil {
		t.Fatal(err)
	}
	ids := func(ls []store.Listing) string {
		var out []string
		for _, l := range ls {
			out = append(out, l.ID)
		}
		return strings.Join(out, " ")
	}
	tests := []struct {
		name string
		f    store.PurgeFilter
		want string
	}{
		{"a /24", store.PurgeFilter{Within: netip.MustParsePrefix("198.51.100.0/24")}, "purge-0"},
		{"one address", store.PurgeFilter{Within: netip.MustParsePrefix("203.0.113.5/32")}, "purge-2"},
		{"a /48 holds the /64", store.PurgeFilter{Within: netip.MustParsePrefix("2001:db8:1::/48")}, "purge-3"},
		{"a /96 is inside the /64, not around it", store.PurgeFilter{Within: netip.MustParsePrefix("2001:db8:1:2::/96")}, ""},
		{"a time window", store.PurgeFilter{From: base.Add(2 * time.Hour), To: base.Add(4 * time.Hour)}, "purge-2 purge-3"},
		{"from on", store.PurgeFilter{From: base.Add(3 * time.Hour)}, "purge-3 purge-4"},
	}
	for _, tt := range tests {
		tt.f.DryRun = true
		got, err := p.Purge(ctx, tt.f)
		if err != nil || ids(got) != tt.want {
			t.Errorf("Purge(%s, dry run) = %q, %v; want %q", tt.name, ids(got), err, tt.want)
		}
	}
	for i := range clients {
		if _, err := runs.Run(ctx, fmt.Sprint("purge-", i)); err != nil {
			t.Fatalf("after dry runs: Run(purge-%d) = %v", i, err)
		}
	}
	got, err := p.Purge(ctx, store.PurgeFilter{Within: netip.MustParsePrefix("198.51.100.0/24")})
	if err != nil || ids(got) != "purge-0" || got[0].Client != "198.51.100.1" || got[0].Bytes == 0 {
		t.Fatalf("Purge(198.51.100.0/24) = %+v, %v; want purge-0 with its client and bytes", got, err)
	}
	if _, err := runs.Run(ctx, "purge-0"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Run(purge-0) after the purge = %v, want ErrNotFound", err)
	}
	if _, _, err := td.Hidden(ctx, "purge-0"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Hidden(purge-0) after the purge = %v, want ErrNotFound", err)
	}
	wantHidden(t, td, "purge-1", "Hidden first.", true)
	if _, err := runs.Run(ctx, "purge-2"); err != nil {
		t.Errorf("Run(purge-2), another client's = %v, want it kept", err)
	}
}
