-- Tamper evidence for every stored field: a hash chain per stream
-- (docs/fairness.md, "Tamper evidence: the hash chain").  The append-only
-- triggers stop everyone but the table's owner; the chain makes an edit by
-- the owner (or anyone who got round the triggers) visible to whoever checks.
--
-- For each event the application computes its digest: SHA-256 of the
-- canonical JSON (RFC 8785: keys sorted, no whitespace, UTF-8) of
--   {"actor", "audience", "causation_id", "correlation_id", "event_id",
--    "event_type", "payload", "stream_id", "stream_version"}
-- and this function chains it, under the append lock, with what only the
-- database decides (the position and the commit time):
--   chain(n) = SHA-256(chain(n-1) || digest(n) || "<position> <recorded_at>")
-- with recorded_at in UTC as 2026-12-01T09:30:00.123456Z and chain(0) 32
-- zero bytes.  Not jsonb's own text rendering: anyone must be able to redo
-- this from the stored or exported fields, in any language.

ALTER TABLE events ADD COLUMN chain bytea CHECK (octet_length(chain) = 32);

-- The canonical JSON text of a jsonb value: object keys sorted by code
-- point (byte order of their UTF-8, so COLLATE "C"), no whitespace.  For
-- strings, integers, booleans and null, jsonb's text is already canonical
-- (its string escapes are JSON.stringify's: \" \\ \b \f \n \r \t, other
-- control characters \u00xx); events hold nothing else (no fractions).
-- Kept after the backfill: future migrations that write events need it, and
-- the tests check it against the application's.
CREATE FUNCTION canonical_json(p_value jsonb) RETURNS text
LANGUAGE plpgsql STABLE STRICT AS $$
BEGIN
    CASE jsonb_typeof(p_value)
    WHEN 'object' THEN
        RETURN '{' || coalesce((
            SELECT string_agg(to_json(x.key)::text || ':' || canonical_json(x.value), ','
                              ORDER BY x.key COLLATE "C")
              FROM jsonb_each(p_value) AS x), '') || '}';
    WHEN 'array' THEN
        RETURN '[' || coalesce((
            SELECT string_agg(canonical_json(x.value), ',' ORDER BY x.n)
              FROM jsonb_array_elements(p_value) WITH ORDINALITY AS x (value, n)), '') || ']';
    ELSE
        RETURN p_value::text;
    END CASE;
END;
$$;

-- An event's digest, as the application computes it (muggins.eventstore.store.event_digest).
CREATE FUNCTION event_digest(
    p_stream_id text, p_stream_version integer, p_event_type text, p_payload jsonb,
    p_audience text, p_actor text, p_correlation_id uuid, p_causation_id uuid, p_event_id uuid
) RETURNS bytea
LANGUAGE sql STABLE AS $$
    SELECT sha256(convert_to(canonical_json(jsonb_build_object(
        'actor', p_actor, 'audience', p_audience, 'causation_id', p_causation_id::text,
        'correlation_id', p_correlation_id::text, 'event_id', p_event_id::text,
        'event_type', p_event_type, 'payload', p_payload, 'stream_id', p_stream_id,
        'stream_version', p_stream_version)), 'UTF8'))
$$;

-- A commit time as the chain hashes it: UTC, microseconds, "Z".
CREATE FUNCTION chain_time(p_recorded_at timestamptz) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT to_char(p_recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
$$;

-- One link of the chain: what follows p_previous when an event with digest
-- p_digest is stored at p_position at the time p_recorded_at (chain_time).
-- A plain SQL expression, so that the planner inlines it where it is called.
CREATE FUNCTION event_chain_link(
    p_previous bytea, p_digest bytea, p_position bigint, p_recorded_at text
) RETURNS bytea
LANGUAGE sql STABLE AS $$
    SELECT sha256(p_previous || p_digest
                  || convert_to(p_position::text || ' ' || p_recorded_at, 'UTF8'))
$$;

-- The chain as a running aggregate: event_chain(seed, digest, position,
-- chain_time(recorded_at)) OVER (... ORDER BY stream_version) gives each
-- event's chain value, starting from seed (the chain of the event before the
-- first).  The step is plpgsql, where event_chain_link is inlined: a third
-- faster than an SQL step, and this runs under the append lock.
CREATE FUNCTION event_chain_step(
    p_state bytea, p_seed bytea, p_digest bytea, p_position bigint, p_recorded_at text
) RETURNS bytea
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN event_chain_link(coalesce(p_state, p_seed), p_digest, p_position, p_recorded_at);
END;
$$;
CREATE AGGREGATE event_chain(bytea, bytea, bigint, text) (
    SFUNC = event_chain_step,
    STYPE = bytea
);

-- The events stored before this migration are chained now, from what is
-- stored (the digest computed here equals the application's: tested over
-- every event type).  Their content before today cannot be vouched for; from
-- now on an edit to any of them shows.  The append-only trigger is disabled
-- for this one UPDATE (the migration runs as the table's owner, inside its
-- transaction, and ALTER TABLE locks out every other writer until commit),
-- then enabled again.
ALTER TABLE events DISABLE TRIGGER events_append_only_rows;
UPDATE events
   SET chain = chained.chain
  FROM (SELECT position,
               event_chain(decode(repeat('00', 32), 'hex'),
                           event_digest(stream_id, stream_version, event_type, payload, audience,
                                        actor, correlation_id, causation_id, event_id),
                           position, chain_time(recorded_at))
                   OVER (PARTITION BY stream_id ORDER BY stream_version) AS chain
          FROM events) AS chained
 WHERE events.position = chained.position;
ALTER TABLE events ENABLE TRIGGER events_append_only_rows;
ALTER TABLE events ALTER COLUMN chain SET NOT NULL;

-- append_events as in 0006, byte for byte, but for the chain: it takes each
-- event's digest (p_digests, flattened like the payloads) and stores the
-- chain value, seeded with the chain of the stream's last event (the one at
-- the expected version, when the batch is accepted).
DROP FUNCTION append_events(text[], integer[], integer[], text[], uuid[], uuid[], uuid[],
                            text[], jsonb[], text[], text[], double precision[], boolean[]);
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
               coalesce(versions.version, 0) = batches.expected AS accepted,
               -- The chain value the batch goes on from: its stream's last event's
               -- (looked up here, not in `versions` with the version: that form
               -- made the planner plan this statement anew on every call).
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
    ), inserted AS (
        INSERT INTO events (position, event_id, stream_id, stream_version, event_type,
                            payload, audience, actor, correlation_id, causation_id,
                            recorded_at, chain)
        SELECT placed.first + i - 1, p_event_ids[placed.source_offset + i], placed.stream_id,
               placed.expected + i, p_event_types[placed.source_offset + i],
               p_payloads[placed.source_offset + i], p_audiences[placed.source_offset + i],
               p_actors[placed.b], p_correlation_ids[placed.b], p_causation_ids[placed.b],
               v_now,
               event_chain(placed.previous_chain, p_digests[placed.source_offset + i],
                           placed.first + i - 1, v_now_text)
                   OVER (PARTITION BY placed.b ORDER BY i)
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
