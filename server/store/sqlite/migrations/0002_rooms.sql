-- Live rooms: a presenter's class following one presentation on their
-- phones. A room's code is what students type and is unique among the
-- rooms not yet expired; its id is permanent and names the summary page.
CREATE TABLE rooms (
	id          TEXT PRIMARY KEY CHECK (id <> ''),
	code        TEXT NOT NULL CHECK (code <> ''),
	secret_hash TEXT NOT NULL,                         -- hex SHA-256 of the presenter's secret
	page        TEXT NOT NULL,                         -- "/scenarios/NAME" or "/r/ID"
	title       TEXT NOT NULL,
	policies    TEXT NOT NULL CHECK (json_valid(policies)), -- JSON array of the table's policies
	diagram     TEXT NOT NULL,                         -- the policy questions are asked under
	step        INTEGER NOT NULL DEFAULT 1 CHECK (step >= 1),
	created_at  TEXT NOT NULL,                         -- RFC 3339, UTC, whole seconds
	expires_at  TEXT NOT NULL
) STRICT;
CREATE INDEX rooms_by_code ON rooms (code, expires_at);

-- A question is asked once per step of a room; revealed_at is set when the
-- presenter shows the answer.
CREATE TABLE questions (
	room_id     TEXT NOT NULL REFERENCES rooms (id),
	step        INTEGER NOT NULL,
	ask         TEXT NOT NULL,
	answer      TEXT NOT NULL CHECK (answer IN ('accepted', 'rejected')),
	opened_at   TEXT NOT NULL,
	revealed_at TEXT,
	PRIMARY KEY (room_id, step)
) STRICT;

-- One answer per student per question: the primary key refuses a second.
CREATE TABLE answers (
	room_id     TEXT NOT NULL,
	step        INTEGER NOT NULL,
	student     TEXT NOT NULL,
	name        TEXT NOT NULL DEFAULT '',
	guess       TEXT NOT NULL CHECK (guess IN ('accepted', 'rejected')),
	answered_at TEXT NOT NULL,
	PRIMARY KEY (room_id, step, student),
	FOREIGN KEY (room_id, step) REFERENCES questions (room_id, step)
) STRICT;
