-- MySQL and MariaDB: one conditional UPDATE decides and writes at once.
-- InnoDB's UPDATE reads the latest committed row under an exclusive lock
-- (not the transaction's snapshot), so the comparison and the write are
-- one step. The writes column changes on every write: MySQL counts rows
-- *changed*, so rewriting equal values would report 0 rows and read as
-- rejected (unless the connection sets clientFoundRows=true).
-- expect: right (fenced)
-- policy: fenced

-- name: reset
CREATE TABLE IF NOT EXISTS fl_resources (name VARCHAR(200) PRIMARY KEY, value TEXT, token BIGINT,
  writes BIGINT NOT NULL DEFAULT 0) ENGINE=InnoDB;
DELETE FROM fl_resources;

-- name: write
INSERT IGNORE INTO fl_resources (name) VALUES (:resource);
UPDATE fl_resources SET value = :value, token = :token, writes = writes + 1
 WHERE name = :resource AND :token IS NOT NULL AND (token IS NULL OR token <= :token);

-- name: read
SELECT value, token FROM fl_resources WHERE name = :resource;
