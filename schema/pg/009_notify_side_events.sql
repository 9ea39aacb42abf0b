-- schema/pg/009_notify_side_events.sql — the live events that are not
-- versions of the session (issue 64): a solve stored for a session
-- (`solve`) and a timed solve's start (`timed`) are announced on
-- cubed_events like the versioned events (003), so watchers on every
-- node hear of them, not only those of the node that wrote the row. The
-- payload carries the kind, the session's version, the text (solution or
-- scramble), the player, the time, a solve's method ('mt') and the
-- writing node's name ('o', its connections' application_name): that
-- node has told its own watchers already and skips it. These rows have no
-- place in the events table, so a notification lost while a node's
-- listener was away is not caught up (GET …/solves and …/timed have them).
CREATE FUNCTION cubed_notify_side_event() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	payload text;
BEGIN
	IF TG_TABLE_NAME = 'solves' THEN
		payload := json_build_object('id', NEW.session_id, 'v', NEW.version,
			'k', 'solve', 'm', NEW.solution, 't', NEW.created_at,
			'mt', NEW.method,
			'o', current_setting('application_name'))::text;
	ELSE
		payload := json_build_object('id', NEW.session_id, 'v', NEW.version,
			'k', 'timed', 'm', NEW.scramble, 'a', NEW.actor,
			't', NEW.inspect_at,
			'o', current_setting('application_name'))::text;
	END IF;
	-- too big for a notification (PostgreSQL's payloads stop at 8000
	-- bytes): not announced; the lists have it
	IF octet_length(payload) <= 7900 THEN
		PERFORM pg_notify('cubed_events', payload);
	END IF;
	RETURN NULL;
END;
$$;

CREATE TRIGGER solves_notify AFTER INSERT ON solves
	FOR EACH ROW EXECUTE FUNCTION cubed_notify_side_event();
CREATE TRIGGER timed_solves_notify AFTER INSERT ON timed_solves
	FOR EACH ROW EXECUTE FUNCTION cubed_notify_side_event();
