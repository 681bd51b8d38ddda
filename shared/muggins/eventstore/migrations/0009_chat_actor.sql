-- The table chat (muggins.chat): spectators speak too, so an event's actor
-- may be "spectator" (a line said by someone watching, who has no seat).
-- NOT VALID, then VALIDATE: the check of existing rows takes no lock that
-- stops appends.
ALTER TABLE events DROP CONSTRAINT IF EXISTS events_actor_check;
ALTER TABLE events ADD CONSTRAINT events_actor_check
    CHECK (actor ~ '^(seat:[0-9]+|bot:[0-9]+|system|spectator)$') NOT VALID;
ALTER TABLE events VALIDATE CONSTRAINT events_actor_check;
