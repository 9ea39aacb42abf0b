-- schema/pg/004_session_scramble.sql — as schema/007: the scramble a
-- session was created with, NULL when none (and for older sessions).
ALTER TABLE sessions ADD COLUMN scramble text;
