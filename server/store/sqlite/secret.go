package sqlite

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
)

// Secret returns the server's 32-byte secret, creating it from crypto/rand
// on first use. It lives in the database so that everything derived from it
// stays valid across restarts.
func (db *DB) Secret(ctx context.Context) ([]byte, error) {
	var secret []byte
	err := db.read.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = 'secret'`).Scan(&secret)
	if err == nil {
		return secret, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("secret: %w", storeError(err))
	}
	if secret, err = db.createSecret(ctx); err != nil {
		return nil, fmt.Errorf("secret: %w", storeError(err))
	}
	return secret, nil
}

// createSecret inserts a fresh secret unless one exists and returns the
// stored one, so concurrent first calls all get the same bytes.
func (db *DB) createSecret(ctx context.Context) ([]byte, error) {
	fresh := make([]byte, 32)
	rand.Read(fresh) // never returns an error; crashes the program instead
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, `
		INSERT INTO settings (key, value) VALUES ('secret', ?)
		ON CONFLICT (key) DO NOTHING`, fresh)
	if err != nil {
		return nil, err
	}
	var secret []byte
	err = tx.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = 'secret'`).Scan(&secret)
	if err != nil {
		return nil, err
	}
	return secret, tx.Commit()
}
