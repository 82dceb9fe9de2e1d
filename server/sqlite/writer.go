package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// maxBatch bounds the saves committed in one transaction, so that one
// commit never keeps the saves behind it waiting for long.
const maxBatch = 256

// save is one SaveRun waiting for the writer.
type save struct {
	ctx  context.Context
	run  Run
	done chan saveResult // buffered: the writer never blocks on an answer
}

type saveResult struct {
	run Run
	err error
}

// writer commits saves in groups: it takes every save that has queued,
// runs them in one transaction (one fsync for all of them) and only then
// answers each. A save whose caller went away before the writer took it is
// not run; one that was taken runs to the end and answers, listened to or
// not, so that what was acknowledged is exactly what was committed.
type writer struct {
	db    *sql.DB
	check func() error // before each group: is the file still ours?
	queue chan *save
	quit  chan struct{}
	done  chan struct{}
}

func newWriter(db *sql.DB, check func() error) *writer {
	w := &writer{db: db, check: check, queue: make(chan *save, maxBatch),
		quit: make(chan struct{}), done: make(chan struct{})}
	go w.loop()
	return w
}

// submit queues r and waits for its answer. It gives up only while r is
// still queued, which the writer then notices and skips.
func (w *writer) submit(ctx context.Context, r Run) (Run, error) {
	if err := ctx.Err(); err != nil {
		return Run{}, err
	}
	s := &save{ctx: ctx, run: r, done: make(chan saveResult, 1)}
	select {
	case w.queue <- s:
	case <-ctx.Done():
		return Run{}, ctx.Err()
	case <-w.quit:
		return Run{}, storeError(ErrClosed)
	}
	select {
	case res := <-s.done:
		return res.run, res.err
	case <-w.done:
		// Queued as Close came, after the writer's last look at the queue.
		select {
		case res := <-s.done:
			return res.run, res.err
		default:
			return Run{}, storeError(ErrClosed)
		}
	}
}

// close stops the writer after it has answered every save already queued.
func (w *writer) close() {
	select {
	case <-w.quit:
	default:
		close(w.quit)
	}
	<-w.done
}

func (w *writer) loop() {
	defer close(w.done)
	batch := make([]*save, 0, maxBatch)
	for {
		select {
		case s := <-w.queue:
			batch = w.gather(append(batch[:0], s))
			w.commit(batch)
		case <-w.quit:
			w.drain()
			return
		}
	}
}

// gather adds to batch every save queued now, up to maxBatch. It does not
// wait for more: saves that arrive during a commit make the next group.
func (w *writer) gather(batch []*save) []*save {
	for len(batch) < maxBatch {
		select {
		case s := <-w.queue:
			batch = append(batch, s)
		default:
			return batch
		}
	}
	return batch
}

// drain answers what was queued when Close came.
func (w *writer) drain() {
	for {
		select {
		case s := <-w.queue:
			s.done <- saveResult{err: storeError(ErrClosed)}
		default:
			return
		}
	}
}

// commit runs the live saves of batch in one transaction, each under its
// own savepoint so that one refused save does not undo the others, and
// answers each after the commit.
func (w *writer) commit(batch []*save) {
	live := batch[:0:0]
	for _, s := range batch {
		if err := s.ctx.Err(); err != nil {
			s.done <- saveResult{err: err}
			continue
		}
		live = append(live, s)
	}
	if len(live) == 0 {
		return
	}
	results, err := w.runGroup(live)
	for i, s := range live {
		if err != nil {
			results[i] = saveResult{err: err}
		}
		if results[i].err != nil {
			results[i].err = fmt.Errorf("save run %q: %w", s.run.ID, storeError(results[i].err))
		}
		s.done <- results[i]
	}
}

// runGroup inserts each save and commits. Its error, if any, is the
// group's: nothing of the group was committed.
func (w *writer) runGroup(live []*save) ([]saveResult, error) {
	results := make([]saveResult, len(live))
	if err := w.check(); err != nil {
		return results, err
	}
	// Not the callers' contexts: a save taken into the group runs to the
	// end even if its caller has gone.
	ctx := context.Background()
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return results, err
	}
	defer tx.Rollback()
	for i, s := range live {
		run, err := insertRun(ctx, tx, s.run)
		var lost *lostTx
		if errors.As(err, &lost) {
			return results, lost.err
		}
		results[i] = saveResult{run: run, err: err}
	}
	return results, tx.Commit()
}

// lostTx is an error after which the transaction is gone: SQLite rolls it
// back whole on some errors, such as a full disk. The group then fails.
type lostTx struct{ err error }

func (e *lostTx) Error() string { return e.err.Error() }

// insertRun inserts r under a savepoint and reads back the stored row. An
// error that took the transaction with it comes back as *lostTx.
func insertRun(ctx context.Context, tx *sql.Tx, r Run) (Run, error) {
	if _, err := tx.ExecContext(ctx, `SAVEPOINT save_run`); err != nil {
		return Run{}, &lostTx{err}
	}
	stored, err := insertAndRead(ctx, tx, r)
	if err != nil {
		if _, rerr := tx.ExecContext(ctx, `ROLLBACK TO save_run`); rerr != nil {
			return Run{}, &lostTx{err}
		}
		return Run{}, err
	}
	if _, err := tx.ExecContext(ctx, `RELEASE save_run`); err != nil {
		return Run{}, &lostTx{err}
	}
	return stored, nil
}

func insertAndRead(ctx context.Context, tx *sql.Tx, r Run) (Run, error) {
	// STRICT TEXT columns refuse BLOBs, and the driver binds []byte as a
	// BLOB: hence the string conversions.
	_, err := tx.ExecContext(ctx, `
		INSERT INTO runs (id, title, scenario, trace, engine_version, created_at, observed)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`,
		r.ID, r.Title, string(r.Scenario), string(r.Trace), r.EngineVersion,
		r.CreatedAt.UTC().Format(time.RFC3339), nullText(r.Observed))
	if err != nil {
		return Run{}, err
	}
	return queryRun(ctx, tx, r.ID)
}
