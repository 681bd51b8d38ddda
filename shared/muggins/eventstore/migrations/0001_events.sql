-- The event store: every fact of every game, append-only.
-- (stream_id, stream_version) unique: optimistic concurrency is a database fact.
CREATE TABLE events (
    -- Global position: gap-free and in commit order (see docs/eventstore.md).
    position        bigint      NOT NULL PRIMARY KEY,
    event_id        uuid        NOT NULL UNIQUE,
    stream_id       text        NOT NULL,
    stream_version  integer     NOT NULL CHECK (stream_version >= 1),
    event_type      text        NOT NULL,
    -- The event as msgspec JSON (the tagged Struct, "type" included).
    payload         jsonb       NOT NULL,
    -- Who may read the payload: 'public', 'audit' or 'seat:N'.
    audience        text        NOT NULL CHECK (audience ~ '^(public|audit|seat:[0-9]+)$'),
    -- Who caused it: 'seat:N', 'bot:N' or 'system'.
    actor           text        NOT NULL CHECK (actor ~ '^(seat:[0-9]+|bot:[0-9]+|system)$'),
    correlation_id  uuid,
    causation_id    uuid,
    recorded_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (stream_id, stream_version)
);

-- The store is append-only for everyone, superusers included.
CREATE FUNCTION refuse_event_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the events table is append-only: % is refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER events_append_only_rows
    BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION refuse_event_changes();

CREATE TRIGGER events_append_only_truncate
    BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_event_changes();

-- Where each catch-up reader (the bus relay, projectors) has got to.
CREATE TABLE checkpoints (
    reader      text        NOT NULL PRIMARY KEY,
    position    bigint      NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Appends several streams' batches in one transaction, all or nothing per
-- batch: a batch whose stream is not at its expected version is skipped and
-- reported (first_position NULL, current_version set); the others commit.
-- The caller never puts the same stream twice in one call.
-- The advisory lock, held until commit, hands out positions one transaction
-- at a time, so positions are gap-free and in commit order: a reader that
-- has seen position n can never later find an event below n.  Batching many
-- writers' appends into one transaction shares one WAL flush among them.
-- Events arrive flattened: batch b owns p_counts[b] consecutive entries.
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
    p_audiences         text[]
) RETURNS TABLE (batch integer, first_position bigint, current_version integer,
                 recorded_at timestamptz)
LANGUAGE plpgsql AS $$
DECLARE
    v_now  timestamptz := clock_timestamp();
    v_next bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(7431020610);
    SELECT coalesce(max(position), 0) + 1 INTO v_next FROM events;
    RETURN QUERY
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
    SELECT placed.b,
           CASE WHEN placed.accepted THEN placed.first END,
           CASE WHEN placed.accepted THEN placed.found + placed.n ELSE placed.found END,
           v_now
      FROM placed
     ORDER BY placed.b;
    PERFORM pg_notify('muggins_events', '');
END;
$$;
