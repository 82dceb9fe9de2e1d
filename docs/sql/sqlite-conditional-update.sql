-- SQLite: one conditional UPDATE decides and writes at once. SQLite has
-- one writer at a time and the probe begins every transaction IMMEDIATE
-- (the write lock first), so this is right, as it would be in any
-- transaction mode: the UPDATE alone is atomic.
-- expect: right (fenced)
-- policy: fenced

-- name: reset
CREATE TABLE IF NOT EXISTS fl_resources (name TEXT PRIMARY KEY, value TEXT, token INTEGER);
DELETE FROM fl_resources;

-- name: write
INSERT INTO fl_resources (name) VALUES (:resource) ON CONFLICT (name) DO NOTHING;
UPDATE fl_resources SET value = :value, token = :token
 WHERE name = :resource AND :token IS NOT NULL AND (token IS NULL OR token <= :token);

-- name: read
SELECT value, token FROM fl_resources WHERE name = :resource;
