-- PostgreSQL: the racy check then write, at SERIALIZABLE. PostgreSQL
-- detects the read-write conflict of two overlapping writers and aborts
-- one with SQLSTATE 40001; the probe retries it as a service must (a new
-- transaction after a backoff), and the retry reads the new token. Right,
-- as long as the service retries: without retries these are errors.
-- expect: right (fenced)
-- policy: fenced

-- name: reset
CREATE TABLE IF NOT EXISTS fl_resources (name text PRIMARY KEY, value text, token bigint);
TRUNCATE fl_resources;

-- name: check
-- isolation: serializable
SELECT token FROM fl_resources WHERE name = :resource;

-- name: write
INSERT INTO fl_resources (name, value, token) VALUES (:resource, :value, :token)
ON CONFLICT (name) DO UPDATE SET value = excluded.value, token = excluded.token;

-- name: read
SELECT value, token FROM fl_resources WHERE name = :resource;
