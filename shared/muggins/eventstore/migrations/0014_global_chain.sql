-- One chain over the whole store, signed checkpoints of it, the keys that
-- sign, and an index for disputes (docs/fairness.md, "One chain over the
-- whole store", "Signed checkpoints").
--
-- Each stream's chain (0007) shows an edit inside the stream, but whoever
-- can write the database can rewrite a stream and recompute its chain, or
-- cut a stream's tail.  The global chain links every event, in position
-- order, to every event before it in the whole store:
--   global(n) = SHA-256(global(n-1) || chain(n))      global(0) = 32 zero bytes
-- where chain(n) is the event's own stream chain value (which already covers
-- its every field, its position and its commit time).  A checkpoint signed
-- by the site (position, global value) then vouches for everything before
-- it: a rewrite or a cut shows against it, and against every receipt given
-- to a player.

ALTER TABLE events ADD COLUMN global_chain bytea CHECK (octet_length(global_chain) = 32);

CREATE FUNCTION global_chain_step(p_state bytea, p_seed bytea, p_chain bytea) RETURNS bytea
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN sha256(coalesce(p_state, p_seed) || p_chain);
END;
$$;
-- global_chain(seed, chain) OVER (ORDER BY position): each event's global value.
CREATE AGGREGATE global_chain(bytea, bytea) (
    SFUNC = global_chain_step,
    STYPE = bytea
);

-- The events stored before this migration are chained now, in position
-- order (as 0007 did for the stream chains: the trigger is off for this
-- one UPDATE, inside the migration's transaction).
ALTER TABLE events DISABLE TRIGGER events_append_only_rows;
UPDATE events
   SET global_chain = chained.global_chain
  FROM (SELECT position,
               global_chain(decode(repeat('00', 32), 'hex'), chain) OVER (ORDER BY position)
                   AS global_chain
          FROM events) AS chained
 WHERE events.position = chained.position;
ALTER TABLE events ENABLE TRIGGER events_append_only_rows;
ALTER TABLE events ALTER COLUMN global_chain SET NOT NULL;

-- An operator resolving a dispute is an actor of the table stream.
ALTER TABLE events DROP CONSTRAINT IF EXISTS events_actor_check;
ALTER TABLE events ADD CONSTRAINT events_actor_check
    CHECK (actor ~ '^(seat:[0-9]+|bot:[0-9]+|system|spectator|operator)$') NOT VALID;
ALTER TABLE events VALIDATE CONSTRAINT events_actor_check;

-- append_events as in 0007, but for the global chain: each accepted event's
-- global value follows the one of the event before it in position order
-- (the store's last event before this call, then this call's, across its
-- batches).  Positions are handed out under the append lock, so the event
-- at v_next - 1 is committed and its global value final.
DROP FUNCTION append_events(text[], integer[], integer[], text[], uuid[], uuid[], uuid[],
                            text[], jsonb[], text[], bytea[], text[], double precision[],
                            boolean[]);
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
    p_digests           bytea[],
    p_due_keys          text[],
    p_due_in            double precision[],
    p_due_earliest      boolean[]
) RETURNS TABLE (batch integer, first_position bigint, current_version integer,
                 recorded_at timestamptz)
LANGUAGE plpgsql AS $$
DECLARE
    v_now      timestamptz := clock_timestamp();
    v_now_text text := chain_time(v_now);
    v_next     bigint;
    v_global   bytea;
    v_batches  integer[];
    v_first    bigint[];
    v_current  integer[];
    v_accepted boolean[];
BEGIN
    PERFORM pg_advisory_xact_lock(7431020610);
    SELECT e.position + 1, e.global_chain INTO v_next, v_global
      FROM events AS e ORDER BY e.position DESC LIMIT 1;
    v_next := coalesce(v_next, 1);
    v_global := coalesce(v_global, decode(repeat('00', 32), 'hex'));
    WITH batches AS (
        SELECT b, p_stream_ids[b] AS stream_id, p_expected_versions[b] AS expected,
               p_counts[b] AS n,
               (sum(p_counts[b]) OVER (ORDER BY b) - p_counts[b])::integer AS source_offset
          FROM generate_subscripts(p_stream_ids, 1) AS b
    ), versions AS (
        SELECT s.stream_id,
               (SELECT max(e.stream_version) FROM events AS e
                 WHERE e.stream_id = s.stream_id) AS version
          FROM unnest(p_stream_ids) AS s (stream_id)
    ), judged AS (
        SELECT batches.*, coalesce(versions.version, 0) AS found,
               coalesce(versions.version, 0) = batches.expected AS accepted,
               coalesce((SELECT e.chain FROM events AS e
                          WHERE e.stream_id = batches.stream_id
                            AND e.stream_version = versions.version),
                        decode(repeat('00', 32), 'hex')) AS previous_chain
          FROM batches LEFT JOIN versions USING (stream_id)
    ), placed AS (
        SELECT judged.*,
               v_next + coalesce(sum(CASE WHEN accepted THEN n ELSE 0 END) OVER (
                   ORDER BY b ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
                   AS first
          FROM judged
    ), chained AS (
        SELECT placed.first + i - 1 AS position, p_event_ids[placed.source_offset + i] AS event_id,
               placed.stream_id, placed.expected + i AS stream_version,
               p_event_types[placed.source_offset + i] AS event_type,
               p_payloads[placed.source_offset + i] AS payload,
               p_audiences[placed.source_offset + i] AS audience,
               p_actors[placed.b] AS actor, p_correlation_ids[placed.b] AS correlation_id,
               p_causation_ids[placed.b] AS causation_id,
               event_chain(placed.previous_chain, p_digests[placed.source_offset + i],
                           placed.first + i - 1, v_now_text)
                   OVER (PARTITION BY placed.b ORDER BY i) AS chain
          FROM placed, generate_series(1, placed.n) AS i
         WHERE placed.accepted
    ), inserted AS (
        INSERT INTO events (position, event_id, stream_id, stream_version, event_type,
                            payload, audience, actor, correlation_id, causation_id,
                            recorded_at, chain, global_chain)
        SELECT chained.position, chained.event_id, chained.stream_id, chained.stream_version,
               chained.event_type, chained.payload, chained.audience, chained.actor,
               chained.correlation_id, chained.causation_id, v_now, chained.chain,
               global_chain(v_global, chained.chain) OVER (ORDER BY chained.position)
          FROM chained
        RETURNING 1
    )
    SELECT array_agg(placed.b ORDER BY placed.b),
           array_agg(CASE WHEN placed.accepted THEN placed.first END ORDER BY placed.b),
           array_agg(CASE WHEN placed.accepted THEN placed.found + placed.n
                          ELSE placed.found END ORDER BY placed.b),
           array_agg(placed.accepted ORDER BY placed.b)
      INTO v_batches, v_first, v_current, v_accepted
      FROM placed;
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
GRANT EXECUTE ON FUNCTION append_events(text[], integer[], integer[], text[], uuid[], uuid[],
                                        uuid[], text[], jsonb[], text[], bytea[], text[],
                                        double precision[], boolean[]) TO muggins_service;

-- The site's public keys, by id (the first 16 hex digits of the SHA-256 of
-- the raw 32-byte key).  The private key never enters the database: each
-- process that signs reads it from its key file (the setting signing_key_file).
-- Kept for good: a checkpoint or a receipt signed by a key retired long ago
-- still names its key here.
CREATE TABLE signing_keys (
    key_id      text        NOT NULL PRIMARY KEY CHECK (key_id ~ '^[0-9a-f]{16}$'),
    public_key  bytea       NOT NULL UNIQUE CHECK (octet_length(public_key) = 32),
    first_used  timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Signed checkpoints of the global chain: at most one per position.
CREATE TABLE signed_checkpoints (
    position     bigint      NOT NULL PRIMARY KEY CHECK (position >= 1),
    global_chain bytea       NOT NULL CHECK (octet_length(global_chain) = 32),
    signed_at    text        NOT NULL,
    key_id       text        NOT NULL REFERENCES signing_keys (key_id),
    signature    bytea       NOT NULL CHECK (octet_length(signature) = 64)
);

CREATE TRIGGER signed_checkpoints_append_only_rows
    BEFORE UPDATE OR DELETE ON signed_checkpoints
    FOR EACH ROW EXECUTE FUNCTION refuse_event_changes();
CREATE TRIGGER signing_keys_append_only_rows
    BEFORE UPDATE OR DELETE ON signing_keys
    FOR EACH ROW EXECUTE FUNCTION refuse_event_changes();

GRANT SELECT, INSERT ON signing_keys, signed_checkpoints TO muggins_service;

-- Disputes are table events; operators list them (muggins dispute list).
CREATE INDEX events_disputes ON events (position)
    WHERE event_type IN ('DisputeOpened', 'DisputeResolved');
