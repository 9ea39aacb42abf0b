-- schema/pg/003_notify_events.sql — live events carry themselves. Until
-- 002 a notification said only '<session id>:<version>' and every node
-- with watchers of that session read the new rows back (several queries
-- per write, on a busy machine the most of cross-node delivery time).
-- Now the row that makes a version (an insert into events) announces
-- itself: the payload is the event as JSON
--   {"id": session, "v": version, "k": kind, "m": moves, "a": actor,
--    "t": created_at, "r": ref, "l": link}
-- and a node appends it to its watchers' streams without a read. An
-- event whose JSON would pass NOTIFY's 8000-byte limit is announced the
-- old way ('<id>:<version>') and read from the table. Deletions stay
-- '<id>:-1' (001's trigger on DELETE). Sent at commit, in commit order,
-- as before.
CREATE FUNCTION cubed_notify_event() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	payload text;
BEGIN
	payload := json_build_object('id', NEW.session_id, 'v', NEW.version,
				     'k', NEW.kind, 'm', NEW.moves,
				     'a', NEW.actor, 't', NEW.created_at,
				     'r', NEW.ref, 'l', NEW.link)::text;
	IF octet_length(payload) > 7900 THEN
		payload := NEW.session_id || ':' || NEW.version;
	END IF;
	PERFORM pg_notify('cubed_events', payload);
	RETURN NULL;
END;
$$;

CREATE TRIGGER events_notify AFTER INSERT ON events
	FOR EACH ROW EXECUTE FUNCTION cubed_notify_event();

-- the version update no longer announces: the event row does
DROP TRIGGER sessions_notify_update ON sessions;
