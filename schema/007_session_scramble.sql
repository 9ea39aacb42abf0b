-- 007_session_scramble.sql — the scramble a session was created with
-- (the moves that took its start to version 0: random ones the server
-- drew, or the client's), so that every reader of the session, not only
-- its creator, can show it. NULL: created without one (and every session
-- made before this schema).
ALTER TABLE sessions ADD COLUMN scramble TEXT;
