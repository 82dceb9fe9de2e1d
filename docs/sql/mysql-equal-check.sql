-- MySQL and MariaDB, as Temporal guards a shard: the owner's range_id is
-- read with a locking read, and a write goes on only when it equals the
-- writer's own (Temporal: rangeID != request.RangeID refuses). decide=equal
-- says so. Each new owner registers its range_id at its grant, the shard
-- row's compare-and-set: the grant's first query returns the range_id
-- held, and the update runs only when the granted one is higher. Under
-- fenced-register equality and "at least" decide alike on every write a
-- granted owner makes, so this is right.
-- expect: right (fenced-register) register-on-acquire
-- policy: fenced-register
-- fencelab: reset=ResetShards check=GetShardForUpdate grant=GetShardForUpdate,UpdateShard
-- fencelab: write=UpdateExecution read=GetExecution decide=equal
-- fencelab: range_id=token data=value
-- fencelab: GetShardForUpdate: ?1=1
-- fencelab: UpdateShard: ?1=token ?2=1
-- fencelab: UpdateExecution: ?1=resource ?2=value ?3=token
-- fencelab: GetExecution: ?1=resource

-- name: ResetShards
CREATE TABLE IF NOT EXISTS fl_shards (shard_id INT PRIMARY KEY, range_id BIGINT NOT NULL) ENGINE=InnoDB;
CREATE TABLE IF NOT EXISTS fl_executions (name VARCHAR(200) PRIMARY KEY, data TEXT, last_write_range BIGINT,
  writes BIGINT NOT NULL DEFAULT 0) ENGINE=InnoDB;
DELETE FROM fl_shards;
DELETE FROM fl_executions;
INSERT INTO fl_shards (shard_id, range_id) VALUES (1, 0);

-- name: GetShardForUpdate
SELECT range_id FROM fl_shards WHERE shard_id = ? FOR UPDATE;

-- name: UpdateShard
UPDATE fl_shards SET range_id = ? WHERE shard_id = ?;

-- name: UpdateExecution
INSERT INTO fl_executions (name, data, last_write_range) VALUES (?, ?, ?)
ON DUPLICATE KEY UPDATE data = VALUES(data), last_write_range = VALUES(last_write_range), writes = writes + 1;

-- name: GetExecution
SELECT data, last_write_range AS range_id FROM fl_executions WHERE name = ?;
