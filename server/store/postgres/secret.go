package postgres

import (
	"context"
	"crypto/rand"
	"fmt"
)

// Secret returns the 32-byte secret that keys run ids, creating it from
// crypto/rand on first use. It lives in the database, so every server on
// it gives a scenario the same id, across restarts too. Servers starting
// at once each offer fresh bytes; the first insert wins and all of them
// read that one back.
func (db *DB) Secret(ctx context.Context) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	fresh := make([]byte, 32)
	rand.Read(fresh) // never returns an error; crashes the program instead
	_, err := db.pool.Exec(ctx, `
		INSERT INTO settings (key, value) VALUES ('secret', $1)
		ON CONFLICT (key) DO NOTHING`, fresh)
	var secret []byte
	if err == nil {
		err = db.pool.QueryRow(ctx, `SELECT value FROM settings WHERE key = 'secret'`).Scan(&secret)
	}
	if err != nil {
		return nil, fmt.Errorf("secret: %w", storeError(err))
	}
	return secret, nil
}
