package sqlite

import (
	"context"
	"fmt"
	"time"

	"fencelab/server/store"
)

// EndRoom ends the room at at, unless it has expired before.
func (db *DB) EndRoom(ctx context.Context, id string, at time.Time) error {
	return db.updateRoom(ctx, "end room", id,
		`UPDATE rooms SET expires_at = ? WHERE id = ? AND expires_at > ?`, stamp(at), id, stamp(at))
}

// SetRoomOptions stores the presenter's choices.
func (db *DB) SetRoomOptions(ctx context.Context, id string, o store.RoomOptions) error {
	return db.updateRoom(ctx, "set options of room", id,
		`UPDATE rooms SET show_names = ?, countdown = ? WHERE id = ?`, o.ShowNames, max(o.Countdown, 0), id)
}

// OfferHandover keeps the hash of a new one-time hand-over code.
func (db *DB) OfferHandover(ctx context.Context, id, codeHash string) error {
	return db.updateRoom(ctx, "offer hand-over of room", id,
		`UPDATE rooms SET handover_hash = ? WHERE id = ?`, codeHash, id)
}

// TakeHandover spends the code: one statement, so two browsers racing
// for one code cannot both win.
func (db *DB) TakeHandover(ctx context.Context, id, codeHash, secretHash string) error {
	res, err := db.write.ExecContext(ctx,
		`UPDATE rooms SET secret_hash = ?, handover_hash = '' WHERE id = ? AND handover_hash = ? AND handover_hash <> ''`,
		secretHash, id, codeHash)
	if err == nil {
		if n, _ := res.RowsAffected(); n == 0 {
			err = store.ErrNoHandover
		}
	}
	if err != nil {
		return fmt.Errorf("take hand-over of room %q: %w", id, storeError(err))
	}
	return nil
}

// updateRoom runs an UPDATE of one room: ErrNoRoom when it touched none.
func (db *DB) updateRoom(ctx context.Context, op, id, query string, args ...any) error {
	res, err := db.write.ExecContext(ctx, query, args...)
	if err == nil {
		if n, _ := res.RowsAffected(); n == 0 {
			err = store.ErrNoRoom
		}
	}
	if err != nil {
		return fmt.Errorf("%s %q: %w", op, id, storeError(err))
	}
	return nil
}
