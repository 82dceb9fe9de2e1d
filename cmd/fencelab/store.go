package main

import (
	"context"
	"log/slog"
	"net/url"
	"strings"

	"fencelab/server/store"
	"fencelab/server/store/postgres"
	"fencelab/server/store/sqlite"
)

// database is a store the program opened and must close.
type database interface {
	store.Runs
	Close() error
}

// openStore opens the store that --db names: a postgres:// (or
// postgresql://) URL is PostgreSQL, anything else a SQLite file.
func openStore(ctx context.Context, db string) (database, error) {
	if isPostgres(db) {
		return postgres.Open(ctx, db)
	}
	return sqlite.Open(db)
}

// fanoutFor is how a live room's changes reach the other servers on db:
// PostgreSQL's notifications, or nil for one server alone (SQLite).
func fanoutFor(db database, log *slog.Logger) (store.Fanout, func()) {
	pg, ok := db.(*postgres.DB)
	if !ok {
		return nil, func() {}
	}
	f := postgres.NewFanout(pg, log)
	return f, f.Close
}

func isPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// redact is db as it may be logged: a URL without its password.
func redact(db string) string {
	if !isPostgres(db) {
		return db
	}
	u, err := url.Parse(db)
	if err != nil {
		return "postgres://(unreadable URL)"
	}
	return u.Redacted()
}
