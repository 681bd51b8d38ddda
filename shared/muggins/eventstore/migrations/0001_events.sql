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
    v_now     timestamptz := clock_timestamp();
    v_next    bigint;
    v_offset  integer := 0;
    v_current integer;
    b         integer;
BEGIN
    PERFORM pg_advisory_xact_lock(7431020610);
    SELECT coalesce(max(position), 0) + 1 INTO v_next FROM events;
    FOR b IN 1 .. cardinality(p_stream_ids) LOOP
        SELECT coalesce(max(stream_version), 0) INTO v_current
            FROM events WHERE stream_id = p_stream_ids[b];
        IF v_current <> p_expected_versions[b] THEN
            RETURN QUERY SELECT b, NULL::bigint, v_current, v_now;
        ELSE
            INSERT INTO events (position, event_id, stream_id, stream_version, event_type,
                                payload, audience, actor, correlation_id, causation_id,
                                recorded_at)
            SELECT v_next + i - 1, p_event_ids[v_offset + i], p_stream_ids[b],
                   p_expected_versions[b] + i, p_event_types[v_offset + i],
                   p_payloads[v_offset + i], p_audiences[v_offset + i], p_actors[b],
                   p_correlation_ids[b], p_causation_ids[b], v_now
              FROM generate_series(1, p_counts[b]) AS i;
            RETURN QUERY SELECT b, v_next, v_current + p_counts[b], v_now;
            v_next := v_next + p_counts[b];
        END IF;
        v_offset := v_offset + p_counts[b];
    END LOOP;
    PERFORM pg_notify('muggins_events', (v_next - 1)::text);
END;
$$;
