-- A guarded append: "append to this stream only if that other stream is
-- still at this version" (docs/eventstore.md, "Appends").  A move is decided
-- on the table's stream as well as its game's (who plays each seat, whether
-- the table is closed, what becomes due next); with the guard, the command
-- decides on the table it has in memory and the append itself checks that
-- the table did not move meanwhile, instead of reading the table's stream
-- afresh before every move (a round trip and a fold per move).
--
-- append_events as in 0014, with two more arrays: p_guard_streams[b] (NULL:
-- no guard) and p_guard_versions[b].  A batch whose guard stream is not at
-- its version is refused like one whose own stream moved (first_position
-- NULL, nothing written).  The writer never puts an append to a stream in
-- the same call as an append guarded by it (muggins.eventstore.store), so a
-- guard is judged against committed events only.
--
-- 0014's function (14 arrays) is kept beside this one: the store calls it
-- for a batch with no guard, and processes of the release before this one
-- call it while a rolling upgrade replaces them (they read the table afresh
-- before every move, so they need no guard).
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
    p_due_earliest      boolean[],
    p_guard_streams     text[],
    p_guard_versions    integer[]
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
               p_counts[b] AS n, p_guard_streams[b] AS guard_stream,
               p_guard_versions[b] AS guard_version,
               (sum(p_counts[b]) OVER (ORDER BY b) - p_counts[b])::integer AS source_offset
          FROM generate_subscripts(p_stream_ids, 1) AS b
    ), versions AS (
        SELECT s.stream_id,
               (SELECT max(e.stream_version) FROM events AS e
                 WHERE e.stream_id = s.stream_id) AS version
          FROM unnest(p_stream_ids) AS s (stream_id)
    ), judged AS (
        SELECT batches.*, coalesce(versions.version, 0) AS found,
               coalesce(versions.version, 0) = batches.expected
               AND (batches.guard_stream IS NULL
                    OR coalesce((SELECT max(e.stream_version) FROM events AS e
                                  WHERE e.stream_id = batches.guard_stream), 0)
                       = batches.guard_version) AS accepted,
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
                                        double precision[], boolean[], text[], integer[])
    TO muggins_service;
