-- 011_ticket_key.sql — the key stream tickets are signed with
-- (server/live/ticket.h), kept with the sessions so tickets survive a
-- restart of the server (and work for every process on this file). Drawn
-- by the first start that needs it (32 random bytes, INSERT OR IGNORE),
-- read back by every later one. Deleting the row draws a new key at the
-- next start: every ticket out there stops working, nothing else changes.
CREATE TABLE ticket_key (
	id  INTEGER PRIMARY KEY CHECK (id = 1),
	key BLOB NOT NULL CHECK (length(key) = 32)
);
