-- PostgreSQL: one conditional UPDATE decides and writes at once.
-- The row is created if missing, then a single UPDATE applies the write
-- only when its token is at least the one stored. The comparison and the
-- write are one statement: a concurrent write waits for the row lock and
-- then re-checks the WHERE clause against the committed row, so no write
-- can slip in between. (PostgreSQL types an UPDATE's WHERE before its SET:
-- ":token IS NOT NULL" alone fails with "could not determine data type of
-- parameter", hence the cast.)
-- expect: right (fenced)
-- policy: fenced

-- name: reset
CREATE TABLE IF NOT EXISTS fl_resources (name text PRIMARY KEY, value text, token bigint);
TRUNCATE fl_resources;

-- name: write
INSERT INTO fl_resources (name) VALUES (:resource) ON CONFLICT (name) DO NOTHING;
UPDATE fl_resources SET value = :value, token = :token
 WHERE name = :resource AND :token::bigint IS NOT NULL AND (token IS NULL OR token <= :token);

-- name: read
SELECT value, token FROM fl_resources WHERE name = :resource;
