-- PostgreSQL: INSERT … ON CONFLICT … DO UPDATE … WHERE, one statement.
-- The first write inserts the row; later ones update it only when the
-- stored token is not higher. ON CONFLICT locks the conflicting row and
-- evaluates the WHERE on its latest version, so the check and the write
-- are one atomic step even at READ COMMITTED. The rows the database
-- reports (0 when the WHERE fails) give the outcome.
-- expect: right (fenced)
-- policy: fenced

-- name: reset
CREATE TABLE IF NOT EXISTS fl_resources (name text PRIMARY KEY, value text, token bigint);
TRUNCATE fl_resources;

-- name: write
INSERT INTO fl_resources AS r (name, value, token)
SELECT :resource, :value, :token::bigint WHERE :token::bigint IS NOT NULL
ON CONFLICT (name) DO UPDATE SET value = excluded.value, token = excluded.token
 WHERE r.token IS NULL OR r.token <= excluded.token;

-- name: read
SELECT value, token FROM fl_resources WHERE name = :resource;
