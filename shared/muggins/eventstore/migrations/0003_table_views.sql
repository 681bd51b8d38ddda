-- Read model of the table-views projector: the public view of every game.
-- Rebuildable at any time from the events (muggins project table-views --rebuild).
CREATE TABLE table_views (
    stream_id   text        PRIMARY KEY,
    table_id    text        NOT NULL,
    game        integer     NOT NULL,
    version     integer     NOT NULL,
    position    bigint      NOT NULL,
    -- The folded game (secrets included: it never leaves the server).
    state       jsonb       NOT NULL,
    -- What anyone may see (muggins.domain.views.GameView for a spectator).
    public_view jsonb       NOT NULL,
    phase       text        NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX table_views_by_table ON table_views (table_id, game DESC);
CREATE INDEX table_views_by_phase ON table_views (phase, updated_at DESC);
