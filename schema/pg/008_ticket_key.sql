-- schema/pg/008_ticket_key.sql — the key stream tickets are signed with
-- (server/live/ticket.h), one for every node of the database, so a ticket
-- minted on one node opens the stream on any (issue 61). The first node
-- to need it draws 32 random bytes and inserts them (ON CONFLICT DO
-- NOTHING: pgcrypto is not assumed); every node then reads the one row
-- back, so all agree. Deleting the row (with every node stopped, or
-- followed by a restart of each) draws a new key: every ticket out there
-- stops working (clients mint new ones), nothing else changes.
CREATE TABLE ticket_key (
	id  integer PRIMARY KEY CHECK (id = 1),
	key bytea NOT NULL CHECK (octet_length(key) = 32)
);
