package main

import (
	"flag"
	"io"
	"testing"
)

func TestByteSize(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{"0", 0, false},
		{"1000", 1000, false},
		{"64MiB", 64 << 20, false},
		{"2GiB", 2 << 30, false},
		{"512 KiB", 512 << 10, false},
		{"500MB", 500e6, false},
		{"1GB", 1e9, false},
		{"-1", 0, true},
		{"2.5GiB", 0, true},
		{"lots", 0, true},
		{"", 0, true},
	}
	for _, tt := range tests {
		var b byteSize
		err := b.Set(tt.in)
		if (err != nil) != tt.wantErr || (err == nil && b.n != tt.want) {
			t.Errorf("byteSize.Set(%q) = %d, %v; want %d, error %v", tt.in, b.n, err, tt.want, tt.wantErr)
		}
	}
	for _, tt := range []struct {
		n    int64
		want string
	}{{64 << 20, "64MiB"}, {2 << 30, "2GiB"}, {1000, "1000"}, {1536 << 10, "1536KiB"}, {0, "0"}} {
		if got := (&byteSize{tt.n}).String(); got != tt.want {
			t.Errorf("byteSize{%d}.String() = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// TestLimitFlags: the defaults, a 0 that turns a budget off, the
// variables, SQLite's default store size and PostgreSQL's none, and a
// variable that cannot be read.
func TestLimitFlags(t *testing.T) {
	parse := func(args ...string) *limitFlags {
		t.Helper()
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		lf, err := addLimitFlags(fs)
		if err != nil {
			t.Fatalf("addLimitFlags: %v", err)
		}
		if err := fs.Parse(args); err != nil {
			t.Fatalf("Parse(%q): %v", args, err)
		}
		return lf
	}
	l := parse().limits(false)
	if l.Saves != 600 || l.SavesPerHour != 1800 || l.SaveBytes != 32<<20 || l.Rooms != 30 || l.SavesAtOnce != 4 || l.MaxStoreSize != 2<<30 {
		t.Errorf("default limits on SQLite = %+v", l)
	}
	if l := parse().limits(true); l.MaxStoreSize >= 0 {
		t.Errorf("default --max-store-size on PostgreSQL = %d, want none (negative)", l.MaxStoreSize)
	}
	if l := parse("--client-saves", "0", "--max-store-size", "0").limits(false); l.Saves != -1 || l.MaxStoreSize != 0 {
		t.Errorf("--client-saves 0 --max-store-size 0: Saves %d, MaxStoreSize %d; want -1 (off) and 0 (no limit)", l.Saves, l.MaxStoreSize)
	}
	t.Setenv("FENCELAB_CLIENT_SAVE_BYTES", "8MiB")
	if l := parse().limits(false); l.SaveBytes != 8<<20 {
		t.Errorf("FENCELAB_CLIENT_SAVE_BYTES=8MiB: SaveBytes %d, want %d", l.SaveBytes, 8<<20)
	}
	t.Setenv("FENCELAB_CLIENT_SAVES", "many")
	if _, err := addLimitFlags(flag.NewFlagSet("serve", flag.ContinueOnError)); err == nil {
		t.Errorf("FENCELAB_CLIENT_SAVES=many: no error, want one naming the variable")
	}
}
