-- PostgreSQL, a queries file as sqlc reads it: each query has sqlc's
-- annotation, its parameters are sqlc's @name and sqlc.arg(), and its
-- columns are the project's own. Nothing below the -- fencelab: lines is
-- written for the probe: they say which query plays which role, what the
-- foreign names mean, and which columns hold the value and the token.
-- The reset enqueues one job per resource (its row is the empty state,
-- read once after each reset). JobComplete is a conditional UPDATE: the
-- comparison and the write are one statement, so this is right.
-- expect: right (fenced)
-- policy: fenced
-- fencelab: reset=JobDeleteAll write=JobComplete read=JobGetByName
-- fencelab: @name=resource @output=value @attempt=token
-- fencelab: output=value attempt=token

-- name: JobDeleteAll :exec
CREATE TABLE IF NOT EXISTS fl_jobs (name text PRIMARY KEY, output text, attempt bigint, state text NOT NULL DEFAULT 'available');
TRUNCATE fl_jobs;
INSERT INTO fl_jobs (name) VALUES (sqlc.arg(name));

-- name: JobComplete :execrows
UPDATE fl_jobs SET output = @output, attempt = @attempt, state = 'completed'
 WHERE name = @name AND @attempt::bigint IS NOT NULL AND (attempt IS NULL OR attempt <= @attempt);

-- name: JobGetByName :one
SELECT name, output, attempt, state FROM fl_jobs WHERE name = @name;
