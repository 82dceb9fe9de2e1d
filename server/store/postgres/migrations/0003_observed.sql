-- A run saved by `fencelab probe --save` also keeps what the real receiver
-- did (JSON); NULL for a run of the model alone. Still never updated.
ALTER TABLE runs ADD COLUMN observed text CHECK (observed IS NULL OR observed::jsonb IS NOT NULL);
