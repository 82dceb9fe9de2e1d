-- MySQL and MariaDB, as k3s kine keeps its rows (see
-- sqlite-kine-refused-on.sql): kine's own InsertSQL with its ? mapped,
-- and no RETURNING: the row inserted is the count of rows that decides.
-- A second successor of one revision breaks the unique index with error
-- 1062, which refused-on reads as a refusal. kine always writes on the
-- revision it read, so every write here carries a version condition (a
-- write without one would break the NOT NULL and stop the probe).
-- expect: right (cas)
-- policy: cas
-- fencelab: write=InsertSQL read=GetRevisionSQL refused-on=1062
-- fencelab: InsertSQL: ?1=resource ?2=expect_version ?3=value
-- fencelab: GetRevisionSQL: ?1=resource id=version

-- name: reset
CREATE TABLE IF NOT EXISTS kine (id BIGINT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(200) NOT NULL,
  prev_revision BIGINT NOT NULL, value MEDIUMBLOB, UNIQUE KEY kine_name_prev_revision_uindex (name, prev_revision)) ENGINE=InnoDB;
DELETE FROM kine;

-- name: InsertSQL
INSERT INTO kine(name, prev_revision, value) values(?, ?, ?);

-- name: GetRevisionSQL
SELECT id, name, value FROM kine WHERE name = ? ORDER BY id DESC LIMIT 1;
