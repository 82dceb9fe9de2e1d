-- PostgreSQL, cas done in the application: SELECT the version, compare
-- it with the version the writer read, then UPDATE, at READ COMMITTED.
-- The probe plays the application's comparison after the check block
-- (under cas: the version it returns must equal :expect_version). In
-- order and in every ordering that is right; under concurrency two
-- writers that read the same version both pass the SELECT before either
-- writes, and the second UPDATE overwrites the first: a lost update,
-- which the concurrent mode reports. SELECT … FOR UPDATE, or the
-- condition in the UPDATE itself (postgres-cas.sql), closes the gap.
-- expect: racy (cas)
-- policy: cas

-- name: reset
CREATE TABLE IF NOT EXISTS fl_versions (name text PRIMARY KEY, value text, token bigint, version bigint NOT NULL DEFAULT 0);
TRUNCATE fl_versions;

-- name: check
-- isolation: read committed
SELECT version FROM fl_versions WHERE name = :resource;

-- name: write
INSERT INTO fl_versions (name) VALUES (:resource) ON CONFLICT (name) DO NOTHING;
UPDATE fl_versions SET value = :value, token = :token, version = version + 1 WHERE name = :resource;

-- name: read
SELECT value, token, version FROM fl_versions WHERE name = :resource;
