-- The lease table on SQLite, with the application's clock (:now_ms).

-- name: reset
CREATE TABLE IF NOT EXISTS fl_lease (
  name       TEXT PRIMARY KEY,
  owner      TEXT,
  n          INTEGER NOT NULL DEFAULT 0,
  expires_at INTEGER
);

-- name: acquire
INSERT INTO fl_lease (name) VALUES (:lock) ON CONFLICT (name) DO NOTHING;
UPDATE fl_lease SET owner = :owner, n = n + 1, expires_at = :now_ms + :ttl_ms
 WHERE name = :lock AND (owner IS NULL OR expires_at <= :now_ms)
RETURNING n AS token;

-- name: renew
UPDATE fl_lease SET expires_at = :now_ms + :ttl_ms
 WHERE name = :lock AND owner = :owner AND expires_at > :now_ms;

-- name: release
UPDATE fl_lease SET owner = NULL, expires_at = NULL
 WHERE name = :lock AND owner = :owner;
