-- Live rooms: a presenter's class following one presentation on their
-- phones. A room's code is what students type and is unique among the
-- rooms not yet expired (CreateRoom checks it under an advisory lock on
-- the code); its id is permanent and names the summary page.
CREATE TABLE rooms (
	id          text COLLATE "C" PRIMARY KEY CHECK (id <> ''),
	code        text COLLATE "C" NOT NULL CHECK (code <> ''),
	secret_hash text NOT NULL,                         -- hex SHA-256 of the presenter's secret
	page        text NOT NULL,                         -- "/scenarios/NAME" or "/r/ID"
	title       text NOT NULL,
	policies    text[] NOT NULL,                       -- the table's policies
	diagram     text NOT NULL,                         -- the policy questions are asked under
	step        integer NOT NULL DEFAULT 1 CHECK (step >= 1),
	created_at  timestamptz NOT NULL,                  -- whole seconds
	expires_at  timestamptz NOT NULL
);
CREATE INDEX rooms_by_code ON rooms (code, expires_at);

-- A question is asked once per step of a room; revealed_at is set when the
-- presenter shows the answer.
CREATE TABLE questions (
	room_id     text COLLATE "C" NOT NULL REFERENCES rooms (id),
	step        integer NOT NULL,
	ask         text NOT NULL,
	answer      text NOT NULL CHECK (answer IN ('accepted', 'rejected')),
	opened_at   timestamptz NOT NULL,
	revealed_at timestamptz,
	PRIMARY KEY (room_id, step)
);

-- One answer per student per question: the primary key refuses a second.
CREATE TABLE answers (
	room_id     text COLLATE "C" NOT NULL,
	step        integer NOT NULL,
	student     text NOT NULL,
	name        text NOT NULL DEFAULT '',
	guess       text NOT NULL CHECK (guess IN ('accepted', 'rejected')),
	answered_at timestamptz NOT NULL,
	PRIMARY KEY (room_id, step, student),
	FOREIGN KEY (room_id, step) REFERENCES questions (room_id, step)
);
