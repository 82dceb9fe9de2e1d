-- Saved runs are permanent links: rows are inserted once and never updated.
-- The JSON is kept as text, byte for byte as the server gave it; the casts
-- only check that it is JSON.
CREATE TABLE runs (
	id             text COLLATE "C" PRIMARY KEY CHECK (id <> ''),
	title          text NOT NULL,
	scenario       text NOT NULL CHECK (scenario::jsonb IS NOT NULL), -- canonical scenario JSON
	trace          text NOT NULL CHECK (trace::jsonb IS NOT NULL),    -- trace JSON
	engine_version text NOT NULL,
	created_at     timestamptz NOT NULL                               -- whole seconds
);

-- Server-wide values such as the link secret, shared by every server on
-- this database; created on first use.
CREATE TABLE settings (
	key   text COLLATE "C" PRIMARY KEY,
	value bytea NOT NULL
);
