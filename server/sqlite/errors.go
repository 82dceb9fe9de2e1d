package sqlite

import (
	"errors"
	"fmt"

	"github.com/mattn/go-sqlite3"

	"fencelab/server"
)

// storeError gives err the server's meaning where SQLite says what went
// wrong: a full disk is server.ErrFull; a file that is locked for too long,
// cannot be opened or fails with an I/O error is server.ErrUnavailable, as
// a later retry may succeed. The driver's error stays wrapped for the log.
func storeError(err error) error {
	var serr sqlite3.Error
	if err == nil || !errors.As(err, &serr) {
		return err
	}
	switch serr.Code {
	case sqlite3.ErrFull:
		return fmt.Errorf("%w: %w", server.ErrFull, err)
	case sqlite3.ErrBusy, sqlite3.ErrLocked, sqlite3.ErrIoErr, sqlite3.ErrCantOpen, sqlite3.ErrReadonly:
		return fmt.Errorf("%w: %w", server.ErrUnavailable, err)
	}
	return err
}
