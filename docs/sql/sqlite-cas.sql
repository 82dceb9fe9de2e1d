-- SQLite, cas: the conditional write of postgres-cas.sql. One UPDATE
-- checks the version the writer read (:expect_version; NULL: no
-- condition) and moves it one on, so nothing can land in between; SQLite
-- has one writer at a time in any case.
-- expect: right (cas)
-- policy: cas

-- name: reset
CREATE TABLE IF NOT EXISTS fl_versions (name TEXT PRIMARY KEY, value TEXT, token INTEGER, version INTEGER NOT NULL DEFAULT 0);
DELETE FROM fl_versions;

-- name: write
INSERT INTO fl_versions (name) VALUES (:resource) ON CONFLICT (name) DO NOTHING;
UPDATE fl_versions SET value = :value, token = :token, version = version + 1
 WHERE name = :resource AND (:expect_version IS NULL OR version = :expect_version);

-- name: read
SELECT value, token, version FROM fl_versions WHERE name = :resource;
