-- SQLite: the application reads the token, decides, then writes, in a
-- DEFERRED transaction (the driver's default: BEGIN takes no lock, the
-- SELECT reads a snapshot, the write asks for the write lock later).
-- Play it as your service runs it: --db 'file:PATH?_txlock=deferred'.
-- What the probe finds: right. SQLite serializes writers and, in WAL
-- mode, refuses to upgrade a read transaction whose snapshot is no longer
-- the latest (SQLITE_BUSY_SNAPSHOT, "database is locked"): the second of
-- two racing writers fails instead of writing over the first, and is
-- retried with a fresh snapshot. The cost is those busy errors: a service
-- that does not retry them fails writes instead of racing. Under the
-- probe's default BEGIN IMMEDIATE the check itself holds the write lock.
-- expect: right (fenced)
-- policy: fenced

-- name: reset
CREATE TABLE IF NOT EXISTS fl_resources (name TEXT PRIMARY KEY, value TEXT, token INTEGER);
DELETE FROM fl_resources;

-- name: check
SELECT token FROM fl_resources WHERE name = :resource;

-- name: write
INSERT INTO fl_resources (name, value, token) VALUES (:resource, :value, :token)
ON CONFLICT (name) DO UPDATE SET value = excluded.value, token = excluded.token;

-- name: read
SELECT value, token FROM fl_resources WHERE name = :resource;
