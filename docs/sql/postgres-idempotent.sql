-- PostgreSQL: fenced-idempotent with a table of op keys. The write locks
-- the resource's row first, so every write to it is serialized; then one
-- statement suppresses an op already applied, applies a write whose token
-- is high enough and records its op key, or rejects it, and says which in
-- its outcome column. A rejected write is rolled back, op key and all.
-- expect: right (fenced-idempotent)
-- policy: fenced-idempotent

-- name: reset
CREATE TABLE IF NOT EXISTS fl_op_resources (name text PRIMARY KEY, value text, token bigint);
CREATE TABLE IF NOT EXISTS fl_ops (resource text, op text, PRIMARY KEY (resource, op));
TRUNCATE fl_op_resources, fl_ops;

-- name: write
INSERT INTO fl_op_resources (name) VALUES (:resource) ON CONFLICT (name) DO NOTHING;
SELECT 1 FROM fl_op_resources WHERE name = :resource FOR UPDATE;
WITH seen AS (SELECT 1 FROM fl_ops WHERE resource = :resource AND op = :op),
upd AS (
  UPDATE fl_op_resources SET value = :value, token = :token
   WHERE name = :resource AND NOT EXISTS (SELECT 1 FROM seen)
     AND :token::bigint IS NOT NULL AND (token IS NULL OR token <= :token)
  RETURNING 1),
ins AS (INSERT INTO fl_ops (resource, op) SELECT :resource, :op FROM upd WHERE :op::text IS NOT NULL)
SELECT CASE WHEN EXISTS (SELECT 1 FROM seen) THEN 'suppressed'
            WHEN EXISTS (SELECT 1 FROM upd) THEN 'applied'
            ELSE 'rejected' END AS outcome;

-- name: read
SELECT value, token FROM fl_op_resources WHERE name = :resource;
