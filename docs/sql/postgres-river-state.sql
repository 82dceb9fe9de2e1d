-- PostgreSQL, as River completes a job: JobSetStateIfRunning finishes the
-- job only while its state is 'running', and the new holder's fetch sets
-- it running again, so the deposed worker's completion still finds it
-- running and lands. The guard is the state, not the attempt: wrong under
-- fenced-register, where B's grant must turn A's late write away. The
-- job is found by an expression on its arguments; the reset enqueues one
-- job per resource, which reads as holding nothing (the empty state).
-- expect: wrong (fenced-register) register-on-acquire
-- policy: fenced-register
-- fencelab: reset=JobReset grant=JobGetAvailable write=JobSetStateIfRunning read=JobGetByResource
-- fencelab: @id=(SELECT id FROM fl_river_job WHERE args->>'resource' = :resource)
-- fencelab: output=value attempt=token

-- name: JobReset :exec
CREATE TABLE IF NOT EXISTS fl_river_job (id bigserial PRIMARY KEY, args jsonb NOT NULL, state text NOT NULL, attempt bigint, output text);
TRUNCATE fl_river_job;
INSERT INTO fl_river_job (args, state) VALUES (jsonb_build_object('resource', sqlc.arg(resource)::text), 'available');

-- name: JobGetAvailable :many
UPDATE fl_river_job SET state = 'running', attempt = @token WHERE args->>'resource' = @resource;

-- name: JobSetStateIfRunning :execrows
UPDATE fl_river_job SET state = 'completed', output = @value
 WHERE id = @id AND state = 'running';

-- name: JobGetByResource :one
SELECT output, attempt FROM fl_river_job WHERE args->>'resource' = @resource;
