-- PostgreSQL: check then write as above, but the check locks the row
-- with SELECT … FOR UPDATE (after creating it if missing, so there is a
-- row to lock). A second writer waits at its SELECT until the first
-- commits, then reads the token the first wrote: check and write are
-- serialized per resource. Right at READ COMMITTED.
-- expect: right (fenced)
-- policy: fenced

-- name: reset
CREATE TABLE IF NOT EXISTS fl_resources (name text PRIMARY KEY, value text, token bigint);
TRUNCATE fl_resources;

-- name: check
-- isolation: read committed
INSERT INTO fl_resources (name) VALUES (:resource) ON CONFLICT (name) DO NOTHING;
SELECT token FROM fl_resources WHERE name = :resource FOR UPDATE;

-- name: write
UPDATE fl_resources SET value = :value, token = :token WHERE name = :resource;

-- name: read
SELECT value, token FROM fl_resources WHERE name = :resource;
