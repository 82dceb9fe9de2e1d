-- PostgreSQL: the application reads the token, decides, then writes, at
-- READ COMMITTED (PostgreSQL's default). Racy: the SELECT takes no lock,
-- so two writers can both read the same token, both pass, and the one
-- with the lower token can write last, after the higher one was
-- acknowledged. Each request alone, in any order, is right; only
-- concurrent writes show the race, so the concurrent mode catches it.
-- expect: racy (fenced)
-- policy: fenced

-- name: reset
CREATE TABLE IF NOT EXISTS fl_resources (name text PRIMARY KEY, value text, token bigint);
TRUNCATE fl_resources;

-- name: check
-- isolation: read committed
SELECT token FROM fl_resources WHERE name = :resource;

-- name: write
INSERT INTO fl_resources (name, value, token) VALUES (:resource, :value, :token)
ON CONFLICT (name) DO UPDATE SET value = excluded.value, token = excluded.token;

-- name: read
SELECT value, token FROM fl_resources WHERE name = :resource;
