package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mattn/go-sqlite3"
)

// maxBatch and maxBatchBytes bound the saves committed in one
// transaction, so that one commit never keeps the saves behind it waiting
// for long: a group of large runs is written in several commits, between
// which the saves queued behind them get their turn sooner.
const (
	maxBatch      = 256
	maxBatchBytes = 4 << 20
)

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
	// observe, if set, is told each group's size after its commit.
	observe atomic.Pointer[func(int)]
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

// gather adds to batch every save queued now, up to maxBatch saves or
// until it holds maxBatchBytes. It does not
// wait for more: saves that arrive during a commit make the next group.
func (w *writer) gather(batch []*save) []*save {
	size := 0
	for _, s := range batch {
		size += s.size()
	}
	for len(batch) < maxBatch && size < maxBatchBytes {
		select {
		case s := <-w.queue:
			batch = append(batch, s)
			size += s.size()
		default:
			return batch
		}
	}
	return batch
}

// size is about what the save writes: its JSON.
func (s *save) size() int {
	return len(s.run.Scenario) + len(s.run.Trace) + len(s.run.Observed)
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

// commit runs the live saves of batch in one transaction, so that one
// refused save does not undo the others, and answers each after the commit.
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
	if f := w.observe.Load(); f != nil {
		(*f)(len(live))
	}
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

// runGroup inserts the group's runs and commits. Its error, if any, is
// the group's: nothing of the group was committed.
func (w *writer) runGroup(live []*save) ([]saveResult, error) {
	results := make([]saveResult, len(live))
	if err := w.check(); err != nil {
		return results, err
	}
	runs := make([]Run, len(live))
	for i, s := range live {
		runs[i] = s.run
		runs[i].CreatedAt = runs[i].CreatedAt.UTC().Truncate(time.Second) // as the table keeps it
	}
	// Not the callers' contexts: a save taken into the group runs to the
	// end even if its caller has gone.
	ctx := context.Background()
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return results, err
	}
	defer tx.Rollback()
	n, err := insertRuns(ctx, tx, runs)
	if err != nil && !refused(err) {
		return results, err
	}
	if err == nil && n == int64(len(runs)) {
		for i := range runs {
			results[i].run = runs[i]
		}
		return results, tx.Commit()
	}
	// One was refused (and the statement undone), or some IDs were saved
	// before: one by one tells each its answer.
	for i, r := range runs {
		if _, err := insertRuns(ctx, tx, runs[i:i+1]); err != nil {
			if !refused(err) {
				return results, err
			}
			results[i].err = err
			continue
		}
		results[i].run, results[i].err = queryRun(ctx, tx, r.ID)
	}
	return results, tx.Commit()
}

// insertRuns inserts runs in one statement, one step of SQLite for the
// whole group, keeping the first run saved under an ID, and reports how
// many rows it added. STRICT TEXT columns refuse BLOBs, and the driver
// binds []byte as a BLOB: hence the string conversions.
func insertRuns(ctx context.Context, tx *sql.Tx, runs []Run) (int64, error) {
	var q strings.Builder
	q.WriteString(`INSERT INTO runs (id, title, scenario, trace, engine_version, created_at, observed, client) VALUES `)
	args := make([]any, 0, 8*len(runs))
	for i, r := range runs {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(?, ?, ?, ?, ?, ?, ?, ?)")
		args = append(args, r.ID, r.Title, string(r.Scenario), string(r.Trace), r.EngineVersion,
			r.CreatedAt.Format(time.RFC3339), nullText(r.Observed), r.Client)
	}
	q.WriteString(` ON CONFLICT (id) DO NOTHING`)
	res, err := tx.ExecContext(ctx, q.String(), args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// refused reports an error that undid only its own statement, such as a
// CHECK that failed: the group goes on. Any other error (a full disk, I/O)
// may have rolled the whole transaction back, and fails the group.
func refused(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code == sqlite3.ErrConstraint
}
