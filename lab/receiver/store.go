package receiver

import "context"

// Store keeps what a receiver holds and decides each write. Every method
// is safe for concurrent use; a correct store decides and applies a write
// atomically.
type Store interface {
	// Reset forgets every value, remembered token and op key.
	Reset(ctx context.Context) error
	// Write decides w and applies it when it passes.
	Write(ctx context.Context, w Write) (Decision, error)
	// Resource returns what the named resource holds.
	Resource(ctx context.Context, name string) (Holding, error)
	// Register remembers a granted token at every resource, as the new
	// holder's first act under fenced-register.
	Register(ctx context.Context, token int64) error
	// Restart restarts the named resource: a correct store keeps its
	// remembered token, a forgetful one loses it.
	Restart(ctx context.Context, resource string) error
	// Close releases the store.
	Close() error
}
