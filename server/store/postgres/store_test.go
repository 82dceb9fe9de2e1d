package postgres

import (
	"testing"

	"fencelab/server/store"
	"fencelab/server/store/storetest"
)

// TestStore runs the store contract on the PostgreSQL server named by
// FENCELAB_TEST_POSTGRES, a fresh schema per test. Several stores on one
// schema stand for several servers; a failing database is a proxy in
// front of it that cuts every connection.
func TestStore(t *testing.T) {
	storetest.TestStore(t, harness(storetest.PostgresURL(t)))
}

func TestRooms(t *testing.T) {
	storetest.TestRooms(t, harness(storetest.PostgresURL(t)))
}

func harness(base string) storetest.Harness {
	return storetest.Harness{Fresh: func(t *testing.T) storetest.Database {
		dsn, hostPort := storetest.FreshSchema(t, base)
		proxy := storetest.NewProxy(t, hostPort)
		dsn = storetest.ThroughProxy(t, dsn, proxy)
		return storetest.Database{
			Open: func() (store.Runs, error) {
				db, err := Open(t.Context(), dsn)
				if err == nil {
					t.Cleanup(func() { db.Close() })
				}
				return db, err
			},
			Break: func() func() {
				proxy.Cut()
				return proxy.Resume
			},
		}
	}}
}

func TestTakedowns(t *testing.T) {
	storetest.TestTakedowns(t, harness(storetest.PostgresURL(t)))
}

func TestPurge(t *testing.T) {
	storetest.TestPurge(t, harness(storetest.PostgresURL(t)))
}
