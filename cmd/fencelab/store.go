package main

import (
	"fencelab/server"
	"fencelab/server/sqlite"
)

// database is a store the program opened and must close.
type database interface {
	server.Store
	Close() error
}

// openStore opens the store that --db names.
func openStore(db string) (database, error) {
	return sqlite.Open(db)
}
