// Package logs turns an incident's log lines into a scenario of the lab:
// it reads JSON Lines, logfmt or CSV line by line from the readers it is
// given, keeps the lines a Mapping names as events, and judges the
// scenario's replay against what the resource was observed to do.
//
// An Importer reads files one after another (Add) and holds only their
// events, at most lab.MaxEvents of them, so a log of any size imports in
// bounded memory; Finish builds the scenario in time order, each event's
// note naming its file and line, and returns the Result: the observed
// outcomes, each policy's verdict against them, the gaps the logs leave,
// and, with a skew, the exploration of every ordering the hosts' clocks
// allow (lab.ExploreOptions.After). A Survey looks at logs before any
// mapping exists and suggests one from the common field names.
//
// docs/import.md walks through an example and lists each choice made
// where the contract of the import is silent.
package logs
