-- PostgreSQL, as cirello pglock keeps a lock's record: its version is a
-- number drawn from a sequence at every attempt, applied or not, so it
-- rises by any step, never by one. The statement is pglock's storeAcquire
-- as its Go constant has it, $1…$6; the -- fencelab: lines map them, one
-- to an expression evaluated by the database each time. A version that
-- skips is right: the probe sends back exactly the versions it read.
-- expect: right (cas)
-- policy: cas
-- fencelab: write=storeAcquire read=storeAcquireReadBack
-- fencelab: $1=resource $2=(nextval('fl_locks_rvn')) $3=value $4=expect_version $5=true $6=writer
-- fencelab: storeAcquireReadBack: data=value record_version_number=version

-- name: reset
CREATE SEQUENCE IF NOT EXISTS fl_locks_rvn;
CREATE TABLE IF NOT EXISTS fl_locks (name text PRIMARY KEY, record_version_number bigint, data text, owner text);
TRUNCATE fl_locks;

-- name: storeAcquire
INSERT INTO fl_locks (name, record_version_number, data, owner) VALUES ($1, $2, $3, $6)
ON CONFLICT (name) DO UPDATE
SET record_version_number = $2, data = CASE WHEN $5 THEN $3 ELSE fl_locks.data END, owner = $6
WHERE fl_locks.record_version_number IS NULL OR fl_locks.record_version_number = $4 OR $4::bigint IS NULL;

-- name: storeAcquireReadBack
SELECT name, owner, data, record_version_number FROM fl_locks WHERE name = $1;
