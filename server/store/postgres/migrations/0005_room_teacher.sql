-- What a teacher runs a room with: the students' names in the shareable
-- summary or not, a countdown per question (seconds, 0 for none), and the
-- hash of a one-time code that hands the room to another browser.
ALTER TABLE rooms ADD COLUMN show_names boolean NOT NULL DEFAULT false;
ALTER TABLE rooms ADD COLUMN countdown integer NOT NULL DEFAULT 0 CHECK (countdown >= 0);
ALTER TABLE rooms ADD COLUMN handover_hash text NOT NULL DEFAULT '';
