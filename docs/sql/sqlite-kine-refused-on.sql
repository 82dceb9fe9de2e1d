-- SQLite, as k3s kine keeps its rows: every write inserts a new row whose
-- prev_revision is the revision the writer read, and a unique index on
-- (name, prev_revision) lets only one successor of a revision in; the
-- second breaks the index, which kine reads as "not updated". refused-on
-- says so: that error is the receiver refusing the write, not a failure
-- of the probe. The revision is the row id, which AUTOINCREMENT never
-- reuses, so versions skip numbers across resets, and are still right:
-- a version must rise with each write applied, by any step.
-- expect: right (cas)
-- policy: cas
-- fencelab: write=InsertSQL read=GetRevisionSQL outcome=rows refused-on=SQLITE_CONSTRAINT_UNIQUE
-- fencelab: InsertSQL: ?1=resource ?3=value
-- fencelab: InsertSQL: ?2=(COALESCE(:expect_version, (SELECT max(id) FROM kine k WHERE k.name = :resource), 0))
-- fencelab: GetRevisionSQL: ?1=resource id=version

-- name: reset
CREATE TABLE IF NOT EXISTS kine (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, prev_revision INTEGER NOT NULL, value BLOB);
CREATE UNIQUE INDEX IF NOT EXISTS kine_name_prev_revision_uindex ON kine (name, prev_revision);
DELETE FROM kine;

-- name: InsertSQL
INSERT INTO kine(name, prev_revision, value) values(?, ?, ?) RETURNING id;

-- name: GetRevisionSQL
SELECT id, name, value FROM kine WHERE name = ? ORDER BY id DESC LIMIT 1;
