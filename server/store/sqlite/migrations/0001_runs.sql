-- Saved runs are permanent links: rows are inserted once and never updated.
CREATE TABLE runs (
	id             TEXT PRIMARY KEY CHECK (id <> ''),
	title          TEXT NOT NULL,
	scenario       TEXT NOT NULL CHECK (json_valid(scenario)), -- canonical scenario JSON
	trace          TEXT NOT NULL CHECK (json_valid(trace)),    -- trace JSON
	engine_version TEXT NOT NULL,
	created_at     TEXT NOT NULL                               -- RFC 3339, UTC, whole seconds
) STRICT;

-- Server-wide values such as the secret; created on first use.
CREATE TABLE settings (
	key   TEXT PRIMARY KEY,
	value BLOB NOT NULL
) STRICT;
