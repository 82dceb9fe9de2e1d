-- MySQL and MariaDB, as Phabricator records an epoch: one upsert that
-- keeps the higher epoch. It never refuses: a stale write leaves the row
-- as it was but still changes it (the counter column), so the database
-- reports a row changed and the write reads as applied. Wrong: the probe
-- says the row still holds the newer value, so the answer claims a write
-- that did not happen.
-- expect: wrong (fenced) paused-worker
-- policy: fenced
-- fencelab: write=SaveEpoch read=LoadEpoch reset=Reset
-- fencelab: SaveEpoch: ?1=resource ?2=value ?3=token
-- fencelab: LoadEpoch: ?1=resource data=value epoch=token

-- name: Reset
CREATE TABLE IF NOT EXISTS fl_epochs (name VARCHAR(200) PRIMARY KEY, data TEXT, epoch BIGINT,
  writes BIGINT NOT NULL DEFAULT 0) ENGINE=InnoDB;
DELETE FROM fl_epochs;

-- name: SaveEpoch
INSERT INTO fl_epochs (name, data, epoch) VALUES (?, ?, ?)
ON DUPLICATE KEY UPDATE data = IF(VALUES(epoch) >= epoch, VALUES(data), data),
  epoch = GREATEST(epoch, VALUES(epoch)), writes = writes + 1;

-- name: LoadEpoch
SELECT data, epoch FROM fl_epochs WHERE name = ?;
