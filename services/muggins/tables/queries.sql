-- The table service's own SQL.  Who sits where is not here: that is the
-- table's event stream (muggins.domain.table_events); these are the secrets kept
-- beside it and the durable schedule.

-- name: insert_seat_token
INSERT INTO seat_tokens (table_id, token_hash, seat, player_id) VALUES ($1, $2, $3, $4);

-- name: delete_seat_token
DELETE FROM seat_tokens WHERE table_id = $1 AND token_hash = $2;

-- name: seat_token
SELECT seat, player_id::text AS player_id FROM seat_tokens
 WHERE table_id = $1 AND token_hash = $2;

-- name: insert_player
INSERT INTO players (player_id, secret_hash) VALUES ($1, $2);

-- name: delete_player
DELETE FROM players WHERE player_id = $1;

-- name: player_secret_hash
SELECT secret_hash FROM players WHERE player_id = $1;

-- name: rotate_player_secret
-- Only while the hash is still the one just checked ($2): of two rotations
-- racing with the same secret, one wins and the other changes nothing.
UPDATE players SET secret_hash = $3 WHERE player_id = $1 AND secret_hash = $2
RETURNING player_id;

-- ------------------------------------------------------------ the schedule

-- name: claim_due
-- Due rows nobody holds (or whose holder's lease ran out), earliest first.
UPDATE due SET claimed_by = $1, claimed_until = clock_timestamp() + make_interval(secs => $2)
 WHERE key IN (SELECT key FROM due
                WHERE due_at <= clock_timestamp()
                  AND (claimed_until IS NULL OR claimed_until < clock_timestamp())
                ORDER BY due_at
                LIMIT $3
                  FOR UPDATE SKIP LOCKED)
RETURNING key;

-- name: claim_one
-- As due_now, for the row just claimed: a bot's step needs no other read
-- when this process has the table and its game at these versions.
UPDATE due SET claimed_by = $1, claimed_until = clock_timestamp() + make_interval(secs => $2)
 WHERE key = $3 AND due_at <= clock_timestamp()
   AND (claimed_until IS NULL OR claimed_until < clock_timestamp())
RETURNING generation, true AS due, clock_timestamp() AS now, 0.0::float8 AS due_in,
          (SELECT coalesce(max(stream_version), 0) FROM events WHERE stream_id = $4)
              AS table_version,
          (SELECT coalesce(max(stream_version), 0) FROM events WHERE stream_id = $5)
              AS game_version;

-- name: due_now
-- The row, whether it is due now, and the versions of the table's stream
-- ($2) and of the game's ($3) as the process knows the table: what it holds
-- at those versions it need not read again (an index's last entry each).
SELECT generation, due_at <= clock_timestamp() AS due, clock_timestamp() AS now,
       extract(epoch FROM due_at - clock_timestamp())::float8 AS due_in,
       (SELECT coalesce(max(stream_version), 0) FROM events WHERE stream_id = $2)
           AS table_version,
       (SELECT coalesce(max(stream_version), 0) FROM events WHERE stream_id = $3)
           AS game_version
  FROM due WHERE key = $1;

-- name: reschedule
-- Only if nobody wrote the row since it was read (an append may have).
UPDATE due SET due_at = clock_timestamp() + make_interval(secs => $3),
               generation = nextval('due_generation')
 WHERE key = $1 AND generation = $2;

-- name: forget_due
DELETE FROM due WHERE key = $1 AND generation = $2;

-- name: release_due
UPDATE due SET claimed_by = NULL, claimed_until = NULL WHERE key = $1 AND claimed_by = $2;

-- name: hold_due
-- A step that failed: nobody tries the table again for $3 seconds.
UPDATE due SET claimed_until = clock_timestamp() + make_interval(secs => $3)
 WHERE key = $1 AND claimed_by = $2;

-- ------------------------------------------------------------ presence

-- name: alive
INSERT INTO service_processes (process_id, alive_until)
VALUES ($1, clock_timestamp() + make_interval(secs => $2))
ON CONFLICT (process_id) DO UPDATE SET alive_until = excluded.alive_until;

-- name: gone
DELETE FROM service_processes WHERE process_id = $1;

-- name: connected
INSERT INTO presence (table_id, seat, process_id, connections) VALUES ($1, $2, $3, 1)
ON CONFLICT (table_id, seat, process_id) DO UPDATE
   SET connections = presence.connections + 1, changed_at = clock_timestamp();

-- name: disconnected
UPDATE presence SET connections = greatest(connections - 1, 0), changed_at = clock_timestamp()
 WHERE table_id = $1 AND seat = $2 AND process_id = $3;

-- name: process_stopped
-- Its sockets are closed: the grace period of their players starts now.
UPDATE presence SET connections = 0, changed_at = clock_timestamp()
 WHERE process_id = $1 AND connections > 0;

-- name: absent_seats
-- Seats with no live connection anywhere for longer than $1 seconds: every
-- row either has no connection left, or belongs to a process that stopped
-- renewing (it died: its sockets went with it).
SELECT p.table_id, p.seat
  FROM presence AS p LEFT JOIN service_processes AS s USING (process_id)
 GROUP BY p.table_id, p.seat
HAVING bool_and(p.connections = 0 OR s.alive_until IS NULL
                OR s.alive_until < clock_timestamp())
   AND max(CASE WHEN p.connections = 0 THEN p.changed_at
                ELSE least(coalesce(s.alive_until, p.changed_at), clock_timestamp()) END)
       < clock_timestamp() - make_interval(secs => $1)
 LIMIT $2;

-- name: forget_absence
-- The seat's rows, once a bot took it (or nothing was to be done): only
-- while still absent, so that a player who just came back keeps theirs.
DELETE FROM presence AS p
 WHERE p.table_id = $1 AND p.seat = $2
   AND (p.connections = 0 OR NOT EXISTS (
        SELECT 1 FROM service_processes AS s
         WHERE s.process_id = p.process_id AND s.alive_until >= clock_timestamp()));

-- name: due_counts
-- For /metrics: armed steps, those already due (the queue), the longest wait.
SELECT count(*) AS armed,
       count(*) FILTER (WHERE due_at <= clock_timestamp()) AS overdue,
       extract(epoch FROM clock_timestamp()
               - min(due_at) FILTER (WHERE due_at <= clock_timestamp()))::float8
           AS oldest_overdue
  FROM due;

-- name: checkpoints_of
-- For /metrics: where the relay and each projector stand, in one read.
SELECT reader, position FROM checkpoints WHERE reader = ANY($1::text[]);

-- name: stored_hint
-- A hint already given for this seat at this position (muggins.tables.hints).
SELECT hint FROM hints WHERE table_id = $1 AND game = $2 AND version = $3 AND seat = $4;

-- name: keep_hint
-- The first hint thought for a position is the one kept; a second process
-- that thought one meanwhile reads the first back.
WITH kept AS (
    INSERT INTO hints (table_id, game, version, seat, hint) VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT DO NOTHING RETURNING hint
)
SELECT hint FROM kept
UNION ALL
SELECT hint FROM hints WHERE table_id = $1 AND game = $2 AND version = $3 AND seat = $4
LIMIT 1;

-- name: stored_analysis
SELECT analysis FROM hand_analyses WHERE table_id = $1 AND game = $2 AND hand = $3;

-- name: keep_analysis
INSERT INTO hand_analyses (table_id, game, hand, analysis) VALUES ($1, $2, $3, $4)
ON CONFLICT DO NOTHING;

-- name: chat_line_said_within
-- Whether the chat stream's line at this version was said within the last
-- $3 seconds, by the database's own clock (the one that recorded it).
SELECT recorded_at > clock_timestamp() - make_interval(secs => $3)
  FROM events WHERE stream_id = $1 AND stream_version = $2;

-- name: disputes
-- The newest dispute events of every table (index events_disputes), newest first.
SELECT stream_id, payload::text AS payload, event_type, recorded_at
  FROM events
 WHERE event_type IN ('DisputeOpened', 'DisputeResolved')
 ORDER BY position DESC
 LIMIT $1;
