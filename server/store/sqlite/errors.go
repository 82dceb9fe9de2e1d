package sqlite

import (
	"errors"
	"fmt"
	"os"

	"github.com/mattn/go-sqlite3"

	"fencelab/server/store"
)

var (
	// ErrReplaced is returned, wrapped with store.ErrUnavailable, by every
	// save once the file at the database's path is no longer the one the
	// server opened (deleted, moved or replaced): a save into the orphaned
	// file would be lost at the next start, and the secret with it.
	ErrReplaced = errors.New("the database file was deleted or replaced while the server ran")
	// ErrClosed is returned, wrapped with store.ErrUnavailable, by a save
	// after Close.
	ErrClosed = errors.New("database closed")
)

// storeError gives err the server's meaning where SQLite says what went
// wrong: a full disk is store.ErrFull; a file that is locked for too long,
// cannot be opened or fails with an I/O error is store.ErrUnavailable, as
// a later retry may succeed. The driver's error stays wrapped for the log.
func storeError(err error) error {
	var serr sqlite3.Error
	if errors.Is(err, ErrReplaced) || errors.Is(err, ErrClosed) {
		return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
	}
	if err == nil || !errors.As(err, &serr) {
		return err
	}
	switch serr.Code {
	case sqlite3.ErrFull:
		return fmt.Errorf("%w: %w", store.ErrFull, err)
	case sqlite3.ErrBusy, sqlite3.ErrLocked, sqlite3.ErrIoErr, sqlite3.ErrCantOpen, sqlite3.ErrReadonly:
		return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
	}
	return err
}

// identity remembers which file was opened, to notice when the path names
// another one (or none).
type identity struct {
	path string
	file os.FileInfo
}

func newIdentity(path string) (identity, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return identity{}, err
	}
	return identity{path: path, file: fi}, nil
}

// check fails with ErrReplaced when the path no longer names the file opened.
func (id identity) check() error {
	fi, err := os.Stat(id.path)
	if err != nil || !os.SameFile(id.file, fi) {
		return fmt.Errorf("%w (%s)", ErrReplaced, id.path)
	}
	return nil
}
