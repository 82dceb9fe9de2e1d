-- Who saved each run, as the server's budgets count clients (an address,
-- an IPv6 /64), so that `fencelab admin purge --client` can remove a
-- flood's runs. Empty for the runs saved before.
ALTER TABLE runs ADD COLUMN client TEXT NOT NULL DEFAULT '';
CREATE INDEX runs_by_client ON runs (client);
