-- The lease table on MySQL or MariaDB, with the application's clock
-- (:now_ms): no UPDATE ... RETURNING, so acquire ends with a SELECT of
-- the row it may have taken.

-- name: reset
CREATE TABLE IF NOT EXISTS fl_lease (
  name       VARCHAR(64) PRIMARY KEY,
  owner      VARCHAR(64),
  n          BIGINT NOT NULL DEFAULT 0,
  expires_at BIGINT
);

-- name: acquire
INSERT IGNORE INTO fl_lease (name) VALUES (:lock);
UPDATE fl_lease SET owner = :owner, n = n + 1, expires_at = :now_ms + :ttl_ms
 WHERE name = :lock AND (owner IS NULL OR expires_at <= :now_ms);
SELECT n AS token FROM fl_lease WHERE name = :lock AND owner = :owner;

-- name: renew
UPDATE fl_lease SET expires_at = :now_ms + :ttl_ms
 WHERE name = :lock AND owner = :owner AND expires_at > :now_ms;

-- name: release
UPDATE fl_lease SET owner = NULL, expires_at = NULL
 WHERE name = :lock AND owner = :owner;
