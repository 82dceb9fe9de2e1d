-- PostgreSQL: the conditional upsert, but the token column is text.
-- Text compares character by character: '10' < '9', so once the stored
-- token is 9 the valid write with token 10 is rejected. Wrong: play the
-- scenario docs/sql/nine-to-ten.json in order to see it (tokens below
-- 10 all have one digit, so paused-worker's 41 and 42 never show it).
-- expect: wrong (fenced) nine-to-ten.json
-- policy: fenced

-- name: reset
CREATE TABLE IF NOT EXISTS fl_text_resources (name text PRIMARY KEY, value text, token text);
TRUNCATE fl_text_resources;

-- name: write
INSERT INTO fl_text_resources AS r (name, value, token)
SELECT :resource, :value, :token::bigint::text WHERE :token::bigint IS NOT NULL
ON CONFLICT (name) DO UPDATE SET value = excluded.value, token = excluded.token
 WHERE r.token IS NULL OR r.token <= excluded.token;

-- name: read
SELECT value, token FROM fl_text_resources WHERE name = :resource;
