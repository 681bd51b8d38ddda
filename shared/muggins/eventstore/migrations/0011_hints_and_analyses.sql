-- Hints and analyses, thought once and kept (muggins.tables.hints and
-- muggins.tables.analysis): asking again, through any process, is a read of
-- the answer first given.  Neither is part of the record of play (the
-- events are): a row here can be thought again from the events, and its
-- answer is the expert's, deterministic for a given position and seed.
CREATE TABLE IF NOT EXISTS hints (
    table_id   text        NOT NULL,
    game       integer     NOT NULL,
    version    integer     NOT NULL,
    seat       integer     NOT NULL,
    -- The hint as the socket sends it (msgspec JSON of protocol.Hint).
    hint       bytea       NOT NULL,
    made_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, game, version, seat)
);

CREATE TABLE IF NOT EXISTS hand_analyses (
    table_id   text        NOT NULL,
    game       integer     NOT NULL,
    hand       integer     NOT NULL,
    -- The analysis as the page gets it (JSON).
    analysis   bytea       NOT NULL,
    made_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, game, hand)
);

-- Kept, never changed: the first answer is the answer.
GRANT SELECT, INSERT ON hints, hand_analyses TO muggins_service;
