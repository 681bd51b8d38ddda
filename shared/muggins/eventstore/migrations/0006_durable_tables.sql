-- Tables become event streams ("<table>-table", muggins.domain.table_events), and
-- what is due at a table next is kept durably (docs/service.md, "What
-- happens next").

-- What is due at each table: one row per table with something to do, the
-- time it is due, and which process is doing it now (a lease).  Appends
-- write it in the same transaction as the events that make it due; a
-- process that finds it due claims it, derives from the streams what to do,
-- does it, and lets go.  A claim whose lease ran out (its process died) is
-- anyone's again.
-- Every write of a row gives it a new generation: a process that read a row
-- changes it afterwards only if nobody wrote it since (compare-and-set).
CREATE SEQUENCE due_generation;
-- Written on every move (a row per table being played): no index but its
-- key, and room on each page, so that the updates stay HOT (no index entry
-- per update, pages pruned as they are read); the poll reads the whole
-- table, which holds only the tables with something to do.
CREATE TABLE due (
    key            text        PRIMARY KEY,
    due_at         timestamptz NOT NULL,
    generation     bigint      NOT NULL DEFAULT nextval('due_generation'),
    claimed_by     text,
    claimed_until  timestamptz
) WITH (fillfactor = 50);

-- Seat tokens: SHA-256 of each token a seat was granted with (the token is
-- never stored).  A token is valid while the seat's holder in the table
-- stream is the player it was granted to.
CREATE TABLE seat_tokens (
    table_id    text        NOT NULL,
    token_hash  bytea       NOT NULL,
    seat        integer     NOT NULL CHECK (seat >= 0),
    player_id   uuid        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (table_id, token_hash)
);

-- Which process holds how many sockets of a seat (for the grace period
-- after a player leaves), and until when each process is known to be alive
-- (a process that stops renewing is dead, and so are its sockets).
CREATE TABLE presence (
    table_id     text        NOT NULL,
    seat         integer     NOT NULL,
    process_id   text        NOT NULL,
    connections  integer     NOT NULL CHECK (connections >= 0),
    changed_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (table_id, seat, process_id)
);
CREATE TABLE service_processes (
    process_id   text        PRIMARY KEY,
    alive_until  timestamptz NOT NULL
);

-- The events of tables that exist already, so that nothing is lost: each
-- table's stream is written from its rows (opened, seats taken, games
-- begun, bots playing for absent players), its tokens move to seat_tokens,
-- and every table whose game is not over is due now (its next step is
-- derived anew).
DO $$
DECLARE
    v_table  record;
    v_seat   record;
    v_next   bigint;
    v_version integer;
    v_game   integer;
    v_bots   jsonb;
    v_payloads jsonb[];
    v_types  text[];
    v_actors text[];
    v_index  integer;
BEGIN
    PERFORM pg_advisory_xact_lock(7431020610);
    SELECT coalesce(max(position), 0) INTO v_next FROM events;
    FOR v_table IN SELECT * FROM tables ORDER BY created_at, table_id LOOP
        SELECT coalesce(jsonb_agg(jsonb_build_object('seat', seat, 'level', bot_level)
                                  ORDER BY seat), '[]'::jsonb)
          INTO v_bots FROM seats WHERE table_id = v_table.table_id AND bot_level IS NOT NULL;
        v_payloads := ARRAY[jsonb_build_object(
            'type', 'TableOpened', 'ruleset', v_table.ruleset,
            'turn_clock_seconds', v_table.turn_clock_seconds, 'bots', v_bots)];
        v_types := ARRAY['TableOpened'];
        v_actors := ARRAY['system'];
        FOR v_seat IN SELECT * FROM seats
                       WHERE table_id = v_table.table_id AND bot_level IS NULL
                         AND name IS NOT NULL AND player_id IS NOT NULL
                       ORDER BY coalesce(taken_at, v_table.created_at), seat LOOP
            v_payloads := v_payloads || jsonb_build_object(
                'type', 'SeatTaken', 'seat', v_seat.seat,
                'player_id', v_seat.player_id::text, 'name', v_seat.name);
            v_types := v_types || 'SeatTaken'::text;
            v_actors := v_actors || ('seat:' || v_seat.seat);
        END LOOP;
        FOR v_game IN 1 .. v_table.game_number LOOP
            v_payloads := v_payloads || jsonb_build_object('type', 'GameBegun', 'game', v_game);
            v_types := v_types || 'GameBegun'::text;
            v_actors := v_actors || 'system'::text;
        END LOOP;
        FOR v_seat IN SELECT * FROM seats
                       WHERE table_id = v_table.table_id AND bot_level IS NULL
                         AND bot_playing ORDER BY seat LOOP
            v_payloads := v_payloads || jsonb_build_object(
                'type', 'BotTookOver', 'seat', v_seat.seat, 'reason', 'absent',
                'game', v_table.game_number, 'version', 0, 'hand', 0);
            v_types := v_types || 'BotTookOver'::text;
            v_actors := v_actors || 'system'::text;
        END LOOP;
        SELECT coalesce(max(stream_version), 0) INTO v_version
          FROM events WHERE stream_id = v_table.table_id || '-table';
        IF v_version > 0 THEN
            CONTINUE;  -- written already
        END IF;
        FOR v_index IN 1 .. array_length(v_payloads, 1) LOOP
            v_next := v_next + 1;
            INSERT INTO events (position, event_id, stream_id, stream_version, event_type,
                                payload, audience, actor)
            VALUES (v_next, gen_random_uuid(), v_table.table_id || '-table', v_index,
                    v_types[v_index], v_payloads[v_index], 'public', v_actors[v_index]);
        END LOOP;
        IF v_table.game_number > 0 AND NOT EXISTS (
            SELECT 1 FROM events
             WHERE stream_id = v_table.table_id || '-g' || v_table.game_number
               AND event_type = 'GameEnded') THEN
            INSERT INTO due (key, due_at) VALUES (v_table.table_id, clock_timestamp())
            ON CONFLICT (key) DO NOTHING;
        END IF;
    END LOOP;
END;
$$;

INSERT INTO seat_tokens (table_id, token_hash, seat, player_id)
SELECT table_id, token_hash, seat, player_id FROM seats
 WHERE token_hash IS NOT NULL AND player_id IS NOT NULL
ON CONFLICT DO NOTHING;

-- `tables` and `seats` are a read model now (the seating projector builds
-- them from the table streams, for the lobby): no secrets, any bot level.
ALTER TABLE seats DROP COLUMN token_hash;
ALTER TABLE seats DROP COLUMN taken_at;
ALTER TABLE seats DROP CONSTRAINT IF EXISTS seats_bot_level_check;
ALTER TABLE seats DROP CONSTRAINT IF EXISTS seats_table_id_fkey;
CREATE INDEX tables_waiting ON tables (created_at DESC) WHERE game_number = 0;

-- Appends may say what becomes due: per batch, a key (NULL: nothing), the
-- seconds from the commit until it is due (NULL: nothing is due any more:
-- the row goes), and whether an earlier due time already there stays
-- ("earliest") or is replaced.  Written only for batches that commit.
DROP FUNCTION append_events(text[], integer[], integer[], text[], uuid[], uuid[], uuid[],
                            text[], jsonb[], text[]);
CREATE FUNCTION append_events(
    p_stream_ids        text[],
    p_expected_versions integer[],
    p_counts            integer[],
    p_actors            text[],
    p_correlation_ids   uuid[],
    p_causation_ids     uuid[],
    p_event_ids         uuid[],
    p_event_types       text[],
    p_payloads          jsonb[],
    p_audiences         text[],
    p_due_keys          text[],
    p_due_in            double precision[],
    p_due_earliest      boolean[]
) RETURNS TABLE (batch integer, first_position bigint, current_version integer,
                 recorded_at timestamptz)
LANGUAGE plpgsql AS $$
DECLARE
    v_now      timestamptz := clock_timestamp();
    v_next     bigint;
    v_batches  integer[];
    v_first    bigint[];
    v_current  integer[];
    v_accepted boolean[];
BEGIN
    PERFORM pg_advisory_xact_lock(7431020610);
    SELECT coalesce(max(position), 0) + 1 INTO v_next FROM events;
    WITH batches AS (
        SELECT b, p_stream_ids[b] AS stream_id, p_expected_versions[b] AS expected,
               p_counts[b] AS n,
               (sum(p_counts[b]) OVER (ORDER BY b) - p_counts[b])::integer AS source_offset
          FROM generate_subscripts(p_stream_ids, 1) AS b
    ), versions AS (
        -- One index probe per stream (max over the (stream_id, stream_version) index).
        SELECT s.stream_id,
               (SELECT max(e.stream_version) FROM events AS e
                 WHERE e.stream_id = s.stream_id) AS version
          FROM unnest(p_stream_ids) AS s (stream_id)
    ), judged AS (
        SELECT batches.*, coalesce(versions.version, 0) AS found,
               coalesce(versions.version, 0) = batches.expected AS accepted
          FROM batches LEFT JOIN versions USING (stream_id)
    ), placed AS (
        SELECT judged.*,
               v_next + coalesce(sum(CASE WHEN accepted THEN n ELSE 0 END) OVER (
                   ORDER BY b ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
                   AS first
          FROM judged
    ), inserted AS (
        INSERT INTO events (position, event_id, stream_id, stream_version, event_type,
                            payload, audience, actor, correlation_id, causation_id,
                            recorded_at)
        SELECT placed.first + i - 1, p_event_ids[placed.source_offset + i], placed.stream_id,
               placed.expected + i, p_event_types[placed.source_offset + i],
               p_payloads[placed.source_offset + i], p_audiences[placed.source_offset + i],
               p_actors[placed.b], p_correlation_ids[placed.b], p_causation_ids[placed.b],
               v_now
          FROM placed, generate_series(1, placed.n) AS i
         WHERE placed.accepted
        RETURNING 1
    )
    SELECT array_agg(placed.b ORDER BY placed.b),
           array_agg(CASE WHEN placed.accepted THEN placed.first END ORDER BY placed.b),
           array_agg(CASE WHEN placed.accepted THEN placed.found + placed.n
                          ELSE placed.found END ORDER BY placed.b),
           array_agg(placed.accepted ORDER BY placed.b)
      INTO v_batches, v_first, v_current, v_accepted
      FROM placed;
    -- What the committed batches make due: a removal first, then the due
    -- times (within one call a due time beats a removal of the same key).
    IF EXISTS (SELECT 1 FROM unnest(p_due_keys) AS k WHERE k IS NOT NULL) THEN
        DELETE FROM due
         WHERE key IN (SELECT p_due_keys[x.b] FROM unnest(v_batches, v_accepted) AS x (b, ok)
                        WHERE x.ok AND p_due_keys[x.b] IS NOT NULL AND p_due_in[x.b] IS NULL);
        INSERT INTO due AS d (key, due_at)
        SELECT DISTINCT ON (p_due_keys[x.b]) p_due_keys[x.b],
               v_now + make_interval(secs => greatest(p_due_in[x.b], 0))
          FROM unnest(v_batches, v_accepted) AS x (b, ok)
         WHERE x.ok AND p_due_keys[x.b] IS NOT NULL AND p_due_in[x.b] IS NOT NULL
           AND NOT p_due_earliest[x.b]
         ORDER BY p_due_keys[x.b], x.b DESC
        ON CONFLICT (key) DO UPDATE
           SET due_at = excluded.due_at, generation = nextval('due_generation');
        INSERT INTO due AS d (key, due_at)
        SELECT p_due_keys[x.b], min(v_now + make_interval(secs => greatest(p_due_in[x.b], 0)))
          FROM unnest(v_batches, v_accepted) AS x (b, ok)
         WHERE x.ok AND p_due_keys[x.b] IS NOT NULL AND p_due_in[x.b] IS NOT NULL
           AND p_due_earliest[x.b]
         GROUP BY p_due_keys[x.b]
        ON CONFLICT (key) DO UPDATE
           SET due_at = least(d.due_at, excluded.due_at), generation = nextval('due_generation');
    END IF;
    PERFORM pg_notify('muggins_events', '');
    RETURN QUERY SELECT x.b, x.first, x.current, v_now
                   FROM unnest(v_batches, v_first, v_current) AS x (b, first, current)
                  ORDER BY x.b;
END;
$$;
