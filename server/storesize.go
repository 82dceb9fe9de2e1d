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
	added    int64
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
	if time.Since(s.at) < sizeEvery {
		return s.measured + s.added, nil
	}
	n, err := s.sizer.Size(ctx)
	if err != nil {
		return s.measured + s.added, err
	}
	s.measured, s.at, s.added = n, time.Now(), 0
	return n, nil
}

// check refuses a save of n bytes that would take the store past its
// limit. A store that cannot be measured now is not refused here: its
// save will say what is wrong.
func (s *storeSize) check(ctx context.Context, n int) error {
	if s.max <= 0 || s.sizer == nil {
		return nil
	}
	size, err := s.size(ctx)
	if err == nil && size+int64(n) > s.max {
		return errStoreFull(s.max)
	}
	return nil
}

// saved counts n bytes saved since the last measure.
func (s *storeSize) saved(n int) {
	s.mu.Lock()
	s.added += int64(n)
	s.mu.Unlock()
}
