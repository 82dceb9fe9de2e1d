-- A lease table on PostgreSQL: one row a lock, its counter n the token.
-- The same statements hold or break with the server's synchronous_commit.

-- name: reset
CREATE TABLE IF NOT EXISTS fl_lease (
  name       text PRIMARY KEY,
  owner      text,
  n          bigint NOT NULL DEFAULT 0,
  expires_at timestamptz
);

-- name: acquire
INSERT INTO fl_lease (name) VALUES (:lock) ON CONFLICT (name) DO NOTHING;
UPDATE fl_lease SET owner = :owner, n = n + 1,
       expires_at = clock_timestamp() + :ttl_ms::bigint * interval '1 millisecond'
 WHERE name = :lock AND (owner IS NULL OR expires_at <= clock_timestamp())
RETURNING n AS token;

-- name: renew
UPDATE fl_lease SET expires_at = clock_timestamp() + :ttl_ms::bigint * interval '1 millisecond'
 WHERE name = :lock AND owner = :owner AND expires_at > clock_timestamp();

-- name: release
UPDATE fl_lease SET owner = NULL, expires_at = NULL
 WHERE name = :lock AND owner = :owner;
