package sqlprobe_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"fencelab/lab"
	"fencelab/lab/probe"
	"fencelab/lab/probe/sqlprobe"
)

// bareWrite is the conditional write of docs/sql/ENGINE-conditional-update.sql
// written by hand against database/sql: what a service would run.
var bareWrite = map[sqlprobe.Engine][2]string{
	sqlprobe.Postgres: {`INSERT INTO fl_resources (name) VALUES ($1) ON CONFLICT (name) DO NOTHING`,
		`UPDATE fl_resources SET value = $2, token = $3 WHERE name = $1 AND $3::bigint IS NOT NULL AND (token IS NULL OR token <= $3)`},
	sqlprobe.MySQL: {`INSERT IGNORE INTO fl_resources (name) VALUES (?)`,
		`UPDATE fl_resources SET value = ?, token = ?, writes = writes + 1 WHERE name = ? AND ? IS NOT NULL AND (token IS NULL OR token <= ?)`},
	sqlprobe.SQLite: {`INSERT INTO fl_resources (name) VALUES (?) ON CONFLICT (name) DO NOTHING`,
		`UPDATE fl_resources SET value = ?, token = ? WHERE name = ? AND ? IS NOT NULL AND (token IS NULL OR token <= ?)`},
}

// BenchmarkWrite weighs one applied write through the SQL receiver (bind
// by name, transaction, outcome from the rows changed) against the same
// two statements in a transaction by hand: the probe's own cost per
// write over the bare database round trip, per engine.
func BenchmarkWrite(b *testing.B) {
	for _, engine := range []sqlprobe.Engine{sqlprobe.SQLite, sqlprobe.Postgres, sqlprobe.MySQL} {
		b.Run(string(engine), func(b *testing.B) {
			path := fmt.Sprintf("../../../docs/sql/%s-conditional-update.sql", engine)
			r, db := open(b, path, engine, lab.Fenced, 1)
			if err := r.Reset(b.Context()); err != nil {
				b.Fatal(err)
			}
			b.Run("bare", func(b *testing.B) { benchBare(b, engine, db) })
			b.Run("probe", func(b *testing.B) { benchProbe(b, r) })
		})
	}
}

// token is the last token written: every run writes higher ones, so that
// each write is applied.
var token int64

func nextToken() int64 {
	token++
	return token
}

func benchProbe(b *testing.B, r *sqlprobe.Receiver) {
	scope := "job"
	for range b.N {
		tok := nextToken()
		a, err := r.Write(b.Context(), probe.WriteRequest{Resource: "result", Value: "v", Token: &tok, Scope: &scope, ID: "#1"})
		if err != nil || a.Outcome != "applied" {
			b.Fatalf("Write token %d = %+v, %v; want applied", tok, a, err)
		}
	}
}

func benchBare(b *testing.B, engine sqlprobe.Engine, url string) {
	_, dsn, err := sqlprobe.DSN(url)
	if err != nil {
		b.Fatal(err)
	}
	db, err := sql.Open(sqlprobe.Drivers[engine], dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	q := bareWrite[engine]
	ctx := b.Context()
	for range b.N {
		tok := nextToken()
		if err := bareOnce(ctx, db, engine, q, tok); err != nil {
			b.Fatal(err)
		}
	}
}

func bareOnce(ctx context.Context, db *sql.DB, engine sqlprobe.Engine, q [2]string, tok int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, q[0], "result"); err != nil {
		return err
	}
	args := []any{"result", "v", tok}
	if engine != sqlprobe.Postgres {
		args = []any{"v", tok, "result", tok, tok}
	}
	res, err := tx.ExecContext(ctx, q[1], args...)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("bare write token %d changed %d rows (%v), want 1", tok, n, err)
	}
	return tx.Commit()
}

// BenchmarkOverhead interleaves the two: each iteration writes once by
// hand and once through the receiver, each first half the time, timing
// each, so that the load of a shared machine falls on both alike. It reports µs per write of each and
// the receiver's overhead in percent.
func BenchmarkOverhead(b *testing.B) {
	for _, engine := range []sqlprobe.Engine{sqlprobe.SQLite, sqlprobe.Postgres, sqlprobe.MySQL} {
		b.Run(string(engine), func(b *testing.B) {
			path := fmt.Sprintf("../../../docs/sql/%s-conditional-update.sql", engine)
			r, _ := open(b, path, engine, lab.Fenced, 1)
			ctx := b.Context()
			if err := r.Reset(ctx); err != nil {
				b.Fatal(err)
			}
			// By hand on the receiver's own pool: the same connection, so
			// that only the receiver's work differs (on SQLite two pools on
			// one file differ by a quarter or more, whichever goes first).
			db := r.DB()
			scope := "job"
			var bare, through time.Duration
			b.ResetTimer()
			byHand := func() {
				t0 := time.Now()
				if err := bareOnce(ctx, db, engine, bareWrite[engine], nextToken()); err != nil {
					b.Fatal(err)
				}
				bare += time.Since(t0)
			}
			probed := func() {
				tok := nextToken()
				t0 := time.Now()
				a, err := r.Write(ctx, probe.WriteRequest{Resource: "result", Value: "v", Token: &tok, Scope: &scope, ID: "#1"})
				through += time.Since(t0)
				if err != nil || a.Outcome != "applied" {
					b.Fatalf("Write token %d = %+v, %v; want applied", tok, a, err)
				}
			}
			for i := range b.N {
				if i%2 == 0 { // each goes first half the time
					byHand()
					probed()
				} else {
					probed()
					byHand()
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(bare.Microseconds())/n, "bare-µs/write")
			b.ReportMetric(float64(through.Microseconds())/n, "probe-µs/write")
			b.ReportMetric(100*(float64(through)/float64(bare)-1), "overhead-%")
		})
	}
}
