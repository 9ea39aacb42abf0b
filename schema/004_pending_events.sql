-- 004_pending_events.sql — a session's newest events, kept in its own row.
-- A write appends its event to `pending` (one record of text per event:
-- server/evlog.h) instead of inserting an events row; the next event that
-- keeps a snapshot (every 32nd version, resets) moves them into events
-- rows first. So a write changes one row, not two, and a commit of writes
-- to many sessions no longer dirties one events page per session. The
-- events rows of a session are always its versions up to some point and
-- `pending` the versions after it; snapshots are only ever in events rows.
ALTER TABLE sessions ADD COLUMN pending TEXT;
