// Package logs turns an incident's log lines into a scenario of the lab
// (import contract v2): it reads each file in its own format (JSON Lines,
// logfmt, CSV, a pattern of the mapping's, or the text presets of klog,
// hclog, ZooKeeper, log4j, the JVM, syslog, heroku, Go's log, PostgreSQL,
// nginx and journald), keeps the lines a Mapping's kind rules match, and
// judges the scenario's replay against what the resource was observed to
// do.
//
// An Importer reads files one after another (Add) and keeps only the
// lines its rules match; a line that holds none of the rules' literals is
// not even parsed, so a log of any size imports in bounded memory. Finish
// builds the timeline the contract describes: each host's lines in their
// own order, clock offsets estimated from causality (a send before its
// deliver, a grant before the uses of its token), duplicates and drop
// notices of the log pipeline, incarnations after a crash, and the lease
// rules that infer what the logs leave out (an expiry never logged, a
// grant logged twice, a re-acquire, an acquire's token). Whatever it
// infers, shifts, merges or leaves out is named in a Gap with its lines.
// The Result holds the scenario, the observed outcomes, each policy's
// verdict against them, the clocks, and, with a skew, the exploration of
// every ordering the clocks allow.
//
// A Survey looks at logs before any mapping exists: each file's format,
// its fields and its distinct message texts, as a mapping to start from
// (SuggestMapping, `fencelab import --suggest`).
//
// docs/import.md walks through examples and lists each choice made where
// the contract of the import is silent.
package logs
