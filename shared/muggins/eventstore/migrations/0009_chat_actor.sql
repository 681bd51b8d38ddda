-- The table chat (muggins.domain.chat): spectators speak too, so an event's actor
-- may be "spectator" (a line said by someone watching, who has no seat).
-- The new check only widens the old one, so every stored row passes it; it
-- is still validated (one scan of the table, under this migration's lock:
-- appends wait for it, once, at the upgrade).
ALTER TABLE events DROP CONSTRAINT IF EXISTS events_actor_check;
ALTER TABLE events ADD CONSTRAINT events_actor_check
    CHECK (actor ~ '^(seat:[0-9]+|bot:[0-9]+|system|spectator)$') NOT VALID;
ALTER TABLE events VALIDATE CONSTRAINT events_actor_check;
