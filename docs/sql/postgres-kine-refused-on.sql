-- PostgreSQL, as k3s kine keeps its rows (see sqlite-kine-refused-on.sql):
-- kine writes ? and rewrites them to $1, $2… before PostgreSQL sees them,
-- so the items of InsertSQL's own name its ? as placeholders; in a query
-- without such items ? would stay the jsonb operator. A second successor
-- of one revision breaks the unique index with SQLSTATE 23505, which
-- refused-on reads as a refusal. The ids come from a sequence that a
-- refused insert also advances, so versions skip numbers, and agree.
-- expect: right (cas)
-- policy: cas
-- fencelab: write=InsertSQL read=GetRevisionSQL outcome=rows refused-on=23505
-- fencelab: InsertSQL: ?1=resource ?3=value
-- fencelab: InsertSQL: ?2=(COALESCE(:expect_version::bigint, (SELECT max(id) FROM kine k WHERE k.name = :resource), 0))
-- fencelab: GetRevisionSQL: ?1=resource id=version

-- name: reset
CREATE TABLE IF NOT EXISTS kine (id bigserial PRIMARY KEY, name text NOT NULL, prev_revision bigint NOT NULL, value bytea);
CREATE UNIQUE INDEX IF NOT EXISTS kine_name_prev_revision_uindex ON kine (name, prev_revision);
TRUNCATE kine;

-- name: InsertSQL
INSERT INTO kine(name, prev_revision, value) values(?, ?, convert_to(?, 'UTF8')) RETURNING id;

-- name: GetRevisionSQL
SELECT id, name, value FROM kine WHERE name = ? ORDER BY id DESC LIMIT 1;
