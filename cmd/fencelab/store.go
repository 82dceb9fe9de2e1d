package main

import (
	"context"
	"errors"
	"fmt"

	"fencelab/server"
	"fencelab/server/sqlite"
)

// store adapts the SQLite database to the server's Store, so that the
// server never imports the database package.
type store struct{ db *sqlite.DB }

func (s store) SaveRun(ctx context.Context, r server.Run) (server.Run, error) {
	saved, err := s.db.SaveRun(ctx, sqlite.Run(r))
	return server.Run(saved), err
}

func (s store) Run(ctx context.Context, id string) (server.Run, error) {
	r, err := s.db.Run(ctx, id)
	if errors.Is(err, sqlite.ErrNotFound) {
		return server.Run{}, fmt.Errorf("%w: %w", server.ErrNotFound, err)
	}
	return server.Run(r), err
}
