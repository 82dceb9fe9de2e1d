// Package migrate is the store adapters' one migration loop: the
// embedded, numbered migrations in name order, each in its own
// transaction, each recorded so that it runs once. The adapters say how
// their database begins a transaction and records a name; the order, the
// skipping and the errors are the same for both.
//
// A shipped migration is never edited: a change is a new numbered file.
package migrate

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
)

// Glob is where the migrations are in an adapter's embedded files.
const Glob = "migrations/*.sql"

// Tx is one transaction of the database being migrated, in its driver's
// terms.
type Tx interface {
	// Applied reports whether the migration called name is recorded.
	Applied(ctx context.Context, name string) (bool, error)
	// Apply runs a migration's SQL and records its name.
	Apply(ctx context.Context, name, body string) error
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
}

// Run applies the migrations of fsys (Glob) in name order, each in a
// transaction of its own from begin, skipping those already recorded. The
// migrations table must exist; an error names the migration it stopped at.
func Run(ctx context.Context, fsys fs.FS, begin func(context.Context) (Tx, error)) error {
	names, err := fs.Glob(fsys, Glob)
	if err != nil {
		return fmt.Errorf("list migrations: %w", err)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := one(ctx, fsys, name, begin); err != nil {
			return fmt.Errorf("migration %s: %w", name, err)
		}
	}
	return nil
}

// one applies the migration called name unless it is already recorded.
func one(ctx context.Context, fsys fs.FS, name string, begin func(context.Context) (Tx, error)) error {
	tx, err := begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)

	done, err := tx.Applied(ctx, name)
	if err != nil || done {
		return err
	}
	body, err := fs.ReadFile(fsys, name)
	if err != nil {
		return err
	}
	if err := tx.Apply(ctx, name, string(body)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
