-- A run the operators took down (`fencelab admin hide`): its row stays, so
-- that saving the same scenario again finds it hidden, and every server
-- looks here before serving any page of a run. Unhiding deletes the row.
CREATE TABLE takedowns (
	run_id    text COLLATE "C" PRIMARY KEY REFERENCES runs (id),
	reason    text NOT NULL CHECK (reason <> ''), -- shown to the public
	hidden_at timestamptz NOT NULL                -- whole seconds
);

-- `fencelab admin list --recent N` reads the newest runs first.
CREATE INDEX runs_by_created ON runs (created_at);
