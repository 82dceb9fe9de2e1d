package server

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"fencelab/server/store"
)

// sizeEvery is how often the store is measured; between measures the
// bytes saved since are added, so a flood of saves cannot overshoot the
// limit by more than the bytes a store adds beyond the runs themselves.
const sizeEvery = time.Second

// storeSize tells the store's size cheaply, for the limit on saves and
// for the metrics, without asking the store on every save.
type storeSize struct {
	sizer store.Sizer // nil: the store cannot say
	max   int64       // 0: no limit

	mu       sync.Mutex
	measured int64
	at       time.Time
	added    int64 // bytes written since the last measure
	// pending are the bytes of writes admitted and not yet settled:
	// counted from the moment they are admitted, so that 64 saves
	// checked at once cannot each find the same room (a flood from 64
	// networks went 3 MB past the cap this way, through the reserve).
	pending int64
}

// errStoreFull answers a save once the store has reached --max-store-size.
func errStoreFull(max int64) error {
	return echo.NewHTTPError(http.StatusInsufficientStorage, fmt.Sprintf(
		"The lab’s store has reached its size limit of %s, so nothing was saved. Saved runs can still be opened, explored and replayed.",
		byteWords(max)))
}

// size is the store's size as last measured plus what was saved since;
// it measures again when the last measure is older than sizeEvery.
func (s *storeSize) size(ctx context.Context) (int64, error) {
	if s.sizer == nil {
		return 0, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sizeLocked(ctx)
}

func (s *storeSize) sizeLocked(ctx context.Context) (int64, error) {
	if time.Since(s.at) < sizeEvery {
		return s.measured + s.added + s.pending, nil
	}
	n, err := s.sizer.Size(ctx)
	if err != nil {
		return s.measured + s.added + s.pending, err
	}
	s.measured, s.at, s.added = n, time.Now(), 0
	return n + s.pending, nil
}

// The store's reserve: the last reserveOf(max) bytes under the size limit
// take only small writes (at most smallWrite bytes: a run of a hand-made
// scenario, an answer, a room), and each network (/24, /48) may put at
// most 1/reserveNetworks of it there an hour (with the default 2 GiB, 4
// MiB: a class's 300 small runs). A flood of large runs from
// many addresses fills the store up to the reserve and no further; small
// saves by others go on until reserveNetworks networks have each spent
// their share, which they get back at that rate (docs/operations.md).
const (
	smallWrite      = 64 << 10
	reserveNetworks = 64
)

// reserveOf is the reserve under a size limit of max: an eighth.
func reserveOf(max int64) int64 { return max / 8 }

// check refuses a write of n bytes that would take the store past its
// limit, or into its reserve when the write is large or the network's
// share of the reserve is spent (takeReserve, which charges the share).
// An admitted write counts at once; settle says how it ended: written,
// it stays counted until the next measure; not, it is taken back with
// its share of the reserve. A store that cannot be measured now is not
// refused here: its write will say what is wrong.
func (s *storeSize) check(ctx context.Context, n int, takeReserve func(int) (func(), bool)) (settle func(written bool), err error) {
	if s.max <= 0 || s.sizer == nil {
		return func(bool) {}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	size, err := s.sizeLocked(ctx)
	if err != nil {
		return func(bool) {}, nil
	}
	undo := func() {}
	switch {
	case size+int64(n) > s.max:
		return nil, errStoreFull(s.max)
	case size+int64(n) <= s.max-reserveOf(s.max):
	case n > smallWrite:
		return nil, errStoreReserved(s.max, "this run is larger than "+byteWords(smallWrite))
	default:
		var ok bool
		if undo, ok = takeReserve(n); !ok {
			return nil, errStoreReserved(s.max, "this network has spent its share of that room for the hour")
		}
	}
	s.pending += int64(n)
	var once sync.Once
	return func(written bool) {
		once.Do(func() {
			s.mu.Lock()
			s.pending -= int64(n)
			if written {
				s.added += int64(n)
			}
			s.mu.Unlock()
			if !written {
				undo()
			}
		})
	}, nil
}

// precheck refuses at once a write of at least n bytes that check would
// refuse whatever it turns out to be (over the cap, or too large for the
// reserve), so that a flood of large runs past the reserve is refused
// before its scenario is replayed.
func (s *storeSize) precheck(ctx context.Context, n int) error {
	if s.max <= 0 || s.sizer == nil {
		return nil
	}
	size, err := s.size(ctx)
	switch {
	case err != nil:
		return nil
	case size+int64(n) > s.max:
		return errStoreFull(s.max)
	case size+int64(n) > s.max-reserveOf(s.max) && n > smallWrite:
		return errStoreReserved(s.max, "this run is larger than "+byteWords(smallWrite))
	}
	return nil
}

// errStoreReserved answers a write the store's reserve does not take.
func errStoreReserved(max int64, why string) error {
	return echo.NewHTTPError(http.StatusInsufficientStorage, fmt.Sprintf(
		"The lab’s store is nearly at its size limit of %s: the room left is kept for small saves from many "+
			"networks, and %s, so nothing was saved. Saved runs can still be opened, explored and replayed.",
		byteWords(max), why))
}
