-- MySQL and MariaDB: the application reads the token with a plain SELECT
-- at REPEATABLE READ (InnoDB's default), decides, then writes. Racy: the
-- SELECT reads the transaction's snapshot and locks nothing, and the
-- later write does not re-check, so two writers can both pass and the
-- lower token can land last. A locking read (SELECT … FOR UPDATE) or a
-- conditional UPDATE (mysql-conditional-update.sql) closes the race.
-- expect: racy (fenced)
-- policy: fenced

-- name: reset
CREATE TABLE IF NOT EXISTS fl_resources (name VARCHAR(200) PRIMARY KEY, value TEXT, token BIGINT,
  writes BIGINT NOT NULL DEFAULT 0) ENGINE=InnoDB;
DELETE FROM fl_resources;

-- name: check
-- isolation: repeatable read
SELECT token FROM fl_resources WHERE name = :resource;

-- name: write
INSERT INTO fl_resources (name, value, token) VALUES (:resource, :value, :token)
ON DUPLICATE KEY UPDATE value = VALUES(value), token = VALUES(token), writes = writes + 1;

-- name: read
SELECT value, token FROM fl_resources WHERE name = :resource;
