package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"fencelab/server/store"
)

func stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

// CreateRoom stores r, unless a room not yet expired has its code. Servers
// creating rooms at once take a lock on the code for the check and the
// insert, so two live rooms never share one.
func (db *DB) CreateRoom(ctx context.Context, r store.Room) error {
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('fencelab room code ' || $1, 0))`, r.Code); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `
			INSERT INTO rooms (id, code, secret_hash, page, title, policies, diagram, step, created_at, expires_at)
			SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::text[], $7::text, 1, $8::timestamptz, $9::timestamptz
			WHERE NOT EXISTS (SELECT 1 FROM rooms WHERE code = $2 AND expires_at > $8)`,
			r.ID, r.Code, r.SecretHash, r.Page, r.Title, r.Policies, r.Diagram, stamp(r.CreatedAt), stamp(r.ExpiresAt))
		if err == nil && tag.RowsAffected() == 0 {
			err = store.ErrCodeTaken
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("create room %s: %w", r.Code, storeError(err))
	}
	return nil
}

// inTx runs fn in a transaction, committed when fn returns nil.
func (db *DB) inTx(ctx context.Context, fn func(pgx.Tx) error) error {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	return pgx.BeginFunc(ctx, db.pool, fn)
}

const roomColumns = `id, code, secret_hash, page, title, policies, diagram, step, created_at, expires_at,
	show_names, countdown, handover_hash`

func scanRoom(row pgx.Row) (store.Room, error) {
	var r store.Room
	err := row.Scan(&r.ID, &r.Code, &r.SecretHash, &r.Page, &r.Title, &r.Policies, &r.Diagram, &r.Step, &r.CreatedAt, &r.ExpiresAt,
		&r.ShowNames, &r.Countdown, &r.HandoverHash)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Room{}, store.ErrNoRoom
	}
	r.CreatedAt, r.ExpiresAt = r.CreatedAt.UTC(), r.ExpiresAt.UTC()
	return r, err
}

// Room returns the room with the given id, expired or not.
func (db *DB) Room(ctx context.Context, id string) (store.Room, error) {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	r, err := scanRoom(db.pool.QueryRow(ctx, `SELECT `+roomColumns+` FROM rooms WHERE id = $1`, id))
	if err != nil {
		return store.Room{}, fmt.Errorf("read room %q: %w", id, storeError(err))
	}
	return r, nil
}

// RoomByCode returns the room with the given code that has not expired at now.
func (db *DB) RoomByCode(ctx context.Context, code string, now time.Time) (store.Room, error) {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	r, err := scanRoom(db.pool.QueryRow(ctx, `SELECT `+roomColumns+` FROM rooms
		WHERE code = $1 AND created_at <= $2 AND expires_at > $2 ORDER BY created_at DESC LIMIT 1`, code, stamp(now)))
	if err != nil {
		return store.Room{}, fmt.Errorf("read room %q: %w", code, storeError(err))
	}
	return r, nil
}

// MoveRoom sets the room's step and, when q is not nil, opens the question
// at that step unless it was asked before.
func (db *DB) MoveRoom(ctx context.Context, id string, step int, q *store.Question) error {
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE rooms SET step = $1 WHERE id = $2`, step, id)
		if err == nil && tag.RowsAffected() == 0 {
			err = store.ErrNoRoom
		}
		if err == nil && q != nil {
			_, err = tx.Exec(ctx, `
				INSERT INTO questions (room_id, step, ask, answer, opened_at) VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT (room_id, step) DO NOTHING`, id, step, q.Ask, q.Answer, stamp(q.OpenedAt))
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("move room %q to step %d: %w", id, step, storeError(err))
	}
	return nil
}

// Reveal closes the question at step to answers and shows its answer.
func (db *DB) Reveal(ctx context.Context, id string, step int, at time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	tag, err := db.pool.Exec(ctx, `
		UPDATE questions SET revealed_at = COALESCE(revealed_at, $1) WHERE room_id = $2 AND step = $3`, stamp(at), id, step)
	if err == nil && tag.RowsAffected() == 0 {
		err = store.ErrNoQuestion
	}
	if err != nil {
		return fmt.Errorf("reveal step %d of room %q: %w", step, id, storeError(err))
	}
	return nil
}

// Answer records a student's answer to the open question at a.Step. The
// question's row is locked for share while the answer goes in, so an
// answer and a reveal on another server are ordered: no answer lands
// after the reveal.
func (db *DB) Answer(ctx context.Context, roomID string, a store.Answer) error {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	tag, err := db.pool.Exec(ctx, `
		INSERT INTO answers (room_id, step, student, name, guess, answered_at)
		SELECT room_id, step, $3::text, $4::text, $5::text, $6::timestamptz FROM questions
		WHERE room_id = $1 AND step = $2 AND revealed_at IS NULL
		FOR SHARE
		ON CONFLICT (room_id, step, student) DO NOTHING`,
		roomID, a.Step, a.Student, a.Name, a.Guess, stamp(a.AnsweredAt))
	if err == nil && tag.RowsAffected() == 1 {
		return nil
	}
	if err == nil {
		var open bool
		err = db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM questions
			WHERE room_id = $1 AND step = $2 AND revealed_at IS NULL)`, roomID, a.Step).Scan(&open)
		if err == nil {
			err = store.ErrAnswered
			if !open {
				err = store.ErrNoQuestion
			}
		}
	}
	return fmt.Errorf("answer step %d of room %q: %w", a.Step, roomID, storeError(err))
}

// Questions returns the room's questions in step order, with their counts.
func (db *DB) Questions(ctx context.Context, id string) ([]store.Question, error) {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	rows, _ := db.pool.Query(ctx, `
		SELECT q.step, q.ask, q.answer, q.opened_at, q.revealed_at IS NOT NULL,
			COUNT(*) FILTER (WHERE a.guess = 'accepted'), COUNT(*) FILTER (WHERE a.guess = 'rejected')
		FROM questions q LEFT JOIN answers a ON a.room_id = q.room_id AND a.step = q.step
		WHERE q.room_id = $1 GROUP BY q.room_id, q.step ORDER BY q.step`, id)
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Question, error) {
		var q store.Question
		err := row.Scan(&q.Step, &q.Ask, &q.Answer, &q.OpenedAt, &q.Revealed, &q.Accepted, &q.Rejected)
		q.OpenedAt = q.OpenedAt.UTC()
		return q, err
	})
	if err != nil {
		return nil, fmt.Errorf("read questions of room %q: %w", id, storeError(err))
	}
	return out, nil
}

// Answers returns the room's answers by step then time; with a student,
// only that student's.
func (db *DB) Answers(ctx context.Context, id, student string) ([]store.Answer, error) {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	rows, _ := db.pool.Query(ctx, `
		SELECT step, student, name, guess, answered_at FROM answers
		WHERE room_id = $1 AND ($2::text = '' OR student = $2) ORDER BY step, answered_at, student`, id, student)
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Answer, error) {
		var a store.Answer
		err := row.Scan(&a.Step, &a.Student, &a.Name, &a.Guess, &a.AnsweredAt)
		a.AnsweredAt = a.AnsweredAt.UTC()
		return a, err
	})
	if err != nil {
		return nil, fmt.Errorf("read answers of room %q: %w", id, storeError(err))
	}
	return out, nil
}
