package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/jackc/pgx/v5/pgconn"

	"fencelab/server/store"
)

// storeError gives err the server's meaning: a database that cannot be
// reached, drops the connection, shuts down, refuses connections or only
// reads is store.ErrUnavailable, as a later retry may succeed; a full disk
// is store.ErrFull. The driver's error stays wrapped for the log.
func storeError(err error) error {
	switch {
	case err == nil:
		return nil
	case isFull(err):
		return fmt.Errorf("%w: %w", store.ErrFull, err)
	case unavailable(err):
		return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
	}
	return err
}

func isFull(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "53100" // disk_full
}

// unavailable reports whether err says the database is out of reach for
// now rather than that a statement is wrong.
func unavailable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code[:2] {
		case "08", // connection exception
			"57", // operator intervention: shutdown, cannot connect now
			"53": // insufficient resources: too many connections, out of memory
			return true
		}
		return pgErr.Code == "25006" // read_only_sql_transaction: a standby
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) || errors.As(err, &netErr) ||
		errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, context.DeadlineExceeded) ||
		pgconn.Timeout(err)
}
