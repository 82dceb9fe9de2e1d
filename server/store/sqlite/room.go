package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"fencelab/server/store"
)

// The server's room types: the database keeps them as they are.
type (
	Room     = store.Room
	Question = store.Question
	Answer   = store.Answer
)

// The room errors, returned wrapped: the server's own.
var (
	ErrNoRoom     = store.ErrNoRoom
	ErrCodeTaken  = store.ErrCodeTaken
	ErrAnswered   = store.ErrAnswered
	ErrNoQuestion = store.ErrNoQuestion
)

func stamp(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

// CreateRoom stores r, unless a room not yet expired has its code.
func (db *DB) CreateRoom(ctx context.Context, r Room) error {
	policies, err := json.Marshal(r.Policies)
	if err != nil {
		return fmt.Errorf("create room: %w", storeError(err))
	}
	res, err := db.write.ExecContext(ctx, `
		INSERT INTO rooms (id, code, secret_hash, page, title, policies, diagram, step, created_at, expires_at)
		SELECT ?, ?, ?, ?, ?, ?, ?, 1, ?, ?
		WHERE NOT EXISTS (SELECT 1 FROM rooms WHERE code = ? AND expires_at > ?)`,
		r.ID, r.Code, r.SecretHash, r.Page, r.Title, string(policies), r.Diagram,
		stamp(r.CreatedAt), stamp(r.ExpiresAt), r.Code, stamp(r.CreatedAt))
	if err != nil {
		return fmt.Errorf("create room: %w", storeError(err))
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fmt.Errorf("create room %s: %w", r.Code, ErrCodeTaken)
	}
	return nil
}

const roomColumns = `id, code, secret_hash, page, title, policies, diagram, step, created_at, expires_at,
	show_names, countdown, handover_hash`

func scanRoom(row *sql.Row) (Room, error) {
	var r Room
	var policies, created, expires string
	err := row.Scan(&r.ID, &r.Code, &r.SecretHash, &r.Page, &r.Title, &policies, &r.Diagram, &r.Step, &created, &expires,
		&r.ShowNames, &r.Countdown, &r.HandoverHash)
	if errors.Is(err, sql.ErrNoRows) {
		return Room{}, ErrNoRoom
	}
	if err == nil {
		err = json.Unmarshal([]byte(policies), &r.Policies)
	}
	if err == nil {
		r.CreatedAt, err = time.Parse(time.RFC3339, created)
	}
	if err == nil {
		r.ExpiresAt, err = time.Parse(time.RFC3339, expires)
	}
	return r, err
}

// Room returns the room with the given id, expired or not.
func (db *DB) Room(ctx context.Context, id string) (Room, error) {
	r, err := scanRoom(db.read.QueryRowContext(ctx, `SELECT `+roomColumns+` FROM rooms WHERE id = ?`, id))
	if err != nil {
		return Room{}, fmt.Errorf("read room %q: %w", id, storeError(err))
	}
	return r, nil
}

// RoomByCode returns the room with the given code that has not expired at now.
func (db *DB) RoomByCode(ctx context.Context, code string, now time.Time) (Room, error) {
	r, err := scanRoom(db.read.QueryRowContext(ctx,
		`SELECT `+roomColumns+` FROM rooms WHERE code = ? AND created_at <= ? AND expires_at > ? ORDER `+
			`BY created_at DESC LIMIT 1`, code, stamp(now), stamp(now)))
	if err != nil {
		return Room{}, fmt.Errorf("read room %q: %w", code, storeError(err))
	}
	return r, nil
}

// MoveRoom sets the room's step and, when q is not nil, opens the question
// at that step unless it was asked before.
func (db *DB) MoveRoom(ctx context.Context, id string, step int, q *Question) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("move room %q: %w", id, storeError(err))
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE rooms SET step = ? WHERE id = ?`, step, id)
	if err == nil {
		if n, _ := res.RowsAffected(); n == 0 {
			err = ErrNoRoom
		}
	}
	if err == nil && q != nil {
		_, err = tx.ExecContext(ctx, `
			INSERT INTO questions (room_id, step, ask, answer, opened_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (room_id, step) DO NOTHING`, id, step, q.Ask, q.Answer, stamp(q.OpenedAt))
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		return fmt.Errorf("move room %q to step %d: %w", id, step, storeError(err))
	}
	return nil
}

// Reveal closes the question at step to answers and shows its answer.
func (db *DB) Reveal(ctx context.Context, id string, step int, at time.Time) error {
	res, err := db.write.ExecContext(ctx, `
		UPDATE questions SET revealed_at = COALESCE(revealed_at, ?) WHERE room_id = ? AND step = ?`, stamp(at), id, step)
	if err == nil {
		if n, _ := res.RowsAffected(); n == 0 {
			err = ErrNoQuestion
		}
	}
	if err != nil {
		return fmt.Errorf("reveal step %d of room %q: %w", step, id, storeError(err))
	}
	return nil
}

// Answer records a student's answer to the open question at a.Step.
func (db *DB) Answer(ctx context.Context, roomID string, a Answer) error {
	res, err := db.write.ExecContext(ctx, `
		INSERT INTO answers (room_id, step, student, name, guess, answered_at)
		SELECT ?, ?, ?, ?, ?, ? FROM questions
		WHERE room_id = ? AND step = ? AND revealed_at IS NULL
		ON CONFLICT (room_id, step, student) DO NOTHING`,
		roomID, a.Step, a.Student, a.Name, a.Guess, stamp(a.AnsweredAt), roomID, a.Step)
	if err != nil {
		return fmt.Errorf("answer step %d of room %q: %w", a.Step, roomID, storeError(err))
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil
	}
	var open int
	err = db.write.QueryRowContext(ctx, `SELECT COUNT(*) FROM questions WHERE room_id = ? AND step = `+
		`? AND revealed_at IS NULL`, roomID, a.Step).Scan(&open)
	if err == nil {
		err = ErrAnswered
		if open == 0 {
			err = ErrNoQuestion
		}
	}
	return fmt.Errorf("answer step %d of room %q: %w", a.Step, roomID, storeError(err))
}

// Questions returns the room's questions in step order, with their counts.
func (db *DB) Questions(ctx context.Context, id string) ([]Question, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT q.step, q.ask, q.answer, q.opened_at, q.revealed_at IS NOT NULL,
			COUNT(*) FILTER (WHERE a.guess = 'accepted'), COUNT(*) FILTER (WHERE a.guess = 'rejected')
		FROM questions q LEFT JOIN answers a ON a.room_id = q.room_id AND a.step = q.step
		WHERE q.room_id = ? GROUP BY q.step ORDER BY q.step`, id)
	if err != nil {
		return nil, fmt.Errorf("read questions of room %q: %w", id, storeError(err))
	}
	defer rows.Close()
	var out []Question
	for rows.Next() {
		var q Question
		var opened string
		if err := rows.Scan(&q.Step, &q.Ask, &q.Answer, &opened, &q.Revealed, &q.Accepted, &q.Rejected); err != nil {
			return nil, fmt.Errorf("read questions of room %q: %w", id, storeError(err))
		}
		if q.OpenedAt, err = time.Parse(time.RFC3339, opened); err != nil {
			return nil, fmt.Errorf("read questions of room %q: %w", id, storeError(err))
		}
		out = append(out, q)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read questions of room %q: %w", id, storeError(err))
	}
	return out, nil
}

// Answers returns the room's answers by step then time; with a student,
// only that student's.
func (db *DB) Answers(ctx context.Context, id, student string) ([]Answer, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT step, student, name, guess, answered_at FROM answers
		WHERE room_id = ? AND (? = '' OR student = ?) ORDER BY step, answered_at, student`, id, student, student)
	if err != nil {
		return nil, fmt.Errorf("read answers of room %q: %w", id, storeError(err))
	}
	defer rows.Close()
	var out []Answer
	for rows.Next() {
		var a Answer
		var at string
		if err := rows.Scan(&a.Step, &a.Student, &a.Name, &a.Guess, &at); err != nil {
			return nil, fmt.Errorf("read answers of room %q: %w", id, storeError(err))
		}
		if a.AnsweredAt, err = time.Parse(time.RFC3339, at); err != nil {
			return nil, fmt.Errorf("read answers of room %q: %w", id, storeError(err))
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read answers of room %q: %w", id, storeError(err))
	}
	return out, nil
}
