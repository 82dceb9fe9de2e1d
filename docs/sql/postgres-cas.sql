-- PostgreSQL, cas: a conditional write on the version the writer read.
-- Each row counts the writes applied to it (version). An rmw write
-- carries :expect_version, the version its writer read (plus its own
-- writes since), and one UPDATE applies it only when the row is still at
-- that version, moving it one on; a write without the condition
-- (:expect_version NULL) is applied as it comes. As with the token check,
-- the comparison and the write are one statement: a concurrent UPDATE
-- waits for the row lock and then re-checks the WHERE clause against the
-- committed row, so two writers that read the same version cannot both
-- get in. Tokens are kept, never checked: cas ignores them.
-- expect: right (cas)
-- policy: cas

-- name: reset
CREATE TABLE IF NOT EXISTS fl_versions (name text PRIMARY KEY, value text, token bigint, version bigint NOT NULL DEFAULT 0);
TRUNCATE fl_versions;

-- name: write
INSERT INTO fl_versions (name) VALUES (:resource) ON CONFLICT (name) DO NOTHING;
UPDATE fl_versions SET value = :value, token = :token, version = version + 1
 WHERE name = :resource AND (:expect_version::bigint IS NULL OR version = :expect_version);

-- name: read
SELECT value, token, version FROM fl_versions WHERE name = :resource;
