package sqlprobe

import "database/sql"

// Planned is a bound statement's text as it runs.
func Planned(st Statement) string { return st.plan.q }

// DB is the receiver's own pool, for a benchmark that writes by hand on
// the very connections the receiver uses.
func (r *Receiver) DB() *sql.DB { return r.db }
