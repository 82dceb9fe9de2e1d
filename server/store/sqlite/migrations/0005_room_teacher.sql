-- What a teacher runs a room with: the students' names in the shareable
-- summary or not, a countdown per question (seconds, 0 for none), and the
-- hash of a one-time code that hands the room to another browser.
ALTER TABLE rooms ADD COLUMN show_names INTEGER NOT NULL DEFAULT 0 CHECK (show_names IN (0, 1));
ALTER TABLE rooms ADD COLUMN countdown INTEGER NOT NULL DEFAULT 0 CHECK (countdown >= 0);
ALTER TABLE rooms ADD COLUMN handover_hash TEXT NOT NULL DEFAULT '';
