package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"fencelab/server"
)

// defaultSQLiteMaxSize is --max-store-size for a SQLite file: room for
// about 100,000 runs of a class's size (docs/operations.md), while the
// file, its write-ahead log and a backup copy (as big as the file) still
// fit on a small server's disk. PostgreSQL gets no default limit: its
// operators size and watch its disk.
const defaultSQLiteMaxSize = 2 << 30

// limitFlags are the serve flags of the per-client budgets and the store's
// size; each takes its default from a FENCELAB_ variable.
type limitFlags struct {
	saves, savesPerHour, rooms, roomsPerHour, atOnce *int
	bytes, bytesPerHour, maxStoreSize                *byteSize
}

// addLimitFlags declares the limit flags on flags, or fails on an
// environment variable it cannot read.
func addLimitFlags(flags *flag.FlagSet) (*limitFlags, error) {
	lf := &limitFlags{bytes: &byteSize{}, bytesPerHour: &byteSize{}, maxStoreSize: &byteSize{}}
	ints := []struct {
		p         **int
		name, env string
		def       int
		help      string
	}{
		{&lf.saves, "client-saves", "FENCELAB_CLIENT_SAVES", 600, "new runs one client may save at once; 0: no limit"},
		{&lf.savesPerHour, "client-saves-per-hour", "FENCELAB_CLIENT_SAVES_PER_HOUR", 1800,
			"new runs one client may save per hour once its burst is spent"},
		{&lf.rooms, "client-rooms", "FENCELAB_CLIENT_ROOMS", 30, "live rooms one client may create at once; 0: no limit"},
		{&lf.roomsPerHour, "client-rooms-per-hour", "FENCELAB_CLIENT_ROOMS_PER_HOUR", 30,
			"live rooms one client may create per hour once its burst is spent"},
		{&lf.atOnce, "client-saves-at-once", "FENCELAB_CLIENT_SAVES_AT_ONCE", 4,
			"saves of one client served at once, more wait their turn; 0: no bound"},
	}
	for _, f := range ints {
		def, err := envInt(f.env, f.def)
		if err != nil {
			return nil, err
		}
		*f.p = flags.Int(f.name, def, f.help+" (env "+f.env+")")
	}
	sizes := []struct {
		v         *byteSize
		name, env string
		def       int64
		help      string
	}{
		{lf.bytes, "client-save-bytes", "FENCELAB_CLIENT_SAVE_BYTES", 32 << 20,
			"bytes of new runs one client may save at once, such as 32MiB; 0: no limit"},
		{lf.bytesPerHour, "client-save-bytes-per-hour", "FENCELAB_CLIENT_SAVE_BYTES_PER_HOUR", 32 << 20,
			"bytes of new runs one client may save per hour once its burst is spent"},
		{lf.maxStoreSize, "max-store-size", "FENCELAB_MAX_STORE_SIZE", -1,
			"database size past which saves answer 507, such as 2GiB; 0: no limit; default 2GiB for SQLite, none for PostgreSQL"},
	}
	for _, f := range sizes {
		f.v.n = f.def
		if v := os.Getenv(f.env); v != "" {
			if err := f.v.Set(v); err != nil {
				return nil, &usageError{fmt.Sprintf("%s: %v", f.env, err)}
			}
		}
		flags.Var(f.v, f.name, f.help+" (env "+f.env+")")
	}
	return lf, nil
}

// limits are the server's Limits from the flags; a 0 flag turns its
// budget off, and an unset --max-store-size is SQLite's default or none.
func (lf *limitFlags) limits(postgres bool) server.Limits {
	off := func(n int64) int64 {
		if n == 0 {
			return -1
		}
		return n
	}
	l := server.Limits{
		Saves: int(off(int64(*lf.saves))), SavesPerHour: int(off(int64(*lf.savesPerHour))),
		SaveBytes: off(lf.bytes.n), SaveBytesPerHour: off(lf.bytesPerHour.n),
		Rooms: int(off(int64(*lf.rooms))), RoomsPerHour: int(off(int64(*lf.roomsPerHour))),
		SavesAtOnce:  int(off(int64(*lf.atOnce))),
		MaxStoreSize: lf.maxStoreSize.n,
	}
	if l.MaxStoreSize < 0 && !postgres {
		l.MaxStoreSize = defaultSQLiteMaxSize
	}
	return l
}

// check refuses negative limits.
func (lf *limitFlags) check() error {
	for _, n := range []int{*lf.saves, *lf.savesPerHour, *lf.rooms, *lf.roomsPerHour, *lf.atOnce} {
		if n < 0 {
			return &usageError{fmt.Sprintf("a client limit must be 0 (none) or more, got %d", n)}
		}
	}
	return nil
}

// envInt is the whole number in the variable name, or fallback when unset.
func envInt(name string, fallback int) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return fallback, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, &usageError{fmt.Sprintf("%s must be a whole number, 0 or more, not %q", name, v)}
	}
	return n, nil
}

// byteSize is a flag of bytes written as 64MiB, 2GiB, 500MB or 1000.
type byteSize struct{ n int64 }

var byteUnits = []struct {
	suffix string
	factor int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1},
}

func (b *byteSize) Set(s string) error {
	s = strings.TrimSpace(s)
	factor := int64(1)
	for _, u := range byteUnits {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			s, factor = strings.TrimSpace(num), u.factor
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/factor {
		return fmt.Errorf("a size must be a whole number of bytes, KiB, MiB, GiB (or KB, MB, GB), such as 64MiB")
	}
	b.n = n * factor
	return nil
}

func (b *byteSize) String() string {
	if b == nil || b.n < 0 {
		return ""
	}
	for _, u := range byteUnits[:4] {
		if b.n >= u.factor && b.n%u.factor == 0 && (u.suffix == "TiB" || b.n%(u.factor<<10) != 0) {
			return strconv.FormatInt(b.n/u.factor, 10) + u.suffix
		}
	}
	return strconv.FormatInt(b.n, 10)
}
