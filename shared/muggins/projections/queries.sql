-- name: lock_checkpoint
SELECT position FROM checkpoints WHERE reader = $1 FOR UPDATE;

-- name: create_checkpoint
INSERT INTO checkpoints (reader, position) VALUES ($1, 0) ON CONFLICT (reader) DO NOTHING;

-- name: move_checkpoint
UPDATE checkpoints SET position = $2, updated_at = clock_timestamp() WHERE reader = $1;

-- name: load_documents
SELECT stream_id, table_id, game, version, position, state::text, players::text
  FROM table_views WHERE stream_id = ANY ($1);

-- name: save_documents
INSERT INTO table_views (stream_id, table_id, game, version, position, state, public_view, phase,
                         players)
SELECT * FROM unnest($1::text[], $2::text[], $3::integer[], $4::integer[], $5::bigint[],
                     $6::jsonb[], $7::jsonb[], $8::text[], $9::jsonb[])
ON CONFLICT (stream_id) DO UPDATE
   SET version = excluded.version, position = excluded.position, state = excluded.state,
       public_view = excluded.public_view, phase = excluded.phase,
       players = excluded.players, updated_at = clock_timestamp();

-- name: forget_table_views
DELETE FROM table_views;

-- name: reset_checkpoint
DELETE FROM checkpoints WHERE reader = $1;

-- name: table_view
SELECT game, version, public_view::text AS public_view, phase,
       state->'ruleset'->>'preset' AS preset, (state->'ruleset')::text AS ruleset
  FROM table_views
 WHERE table_id = $1 ORDER BY game DESC LIMIT 1;

-- name: playing
SELECT v.table_id, v.game, v.version, v.public_view::text AS public_view,
       v.state->'ruleset'->>'preset' AS preset, (v.state->'ruleset')::text AS ruleset,
       (SELECT array_agg(s.name ORDER BY s.seat) FROM seats s WHERE s.table_id = v.table_id)
           AS names,
       t.host_name, t.made_from
  FROM table_views v LEFT JOIN tables t USING (table_id)
 WHERE v.phase IN ('playing', 'between-hands')
   AND t.closed_reason IS NULL
 ORDER BY v.updated_at DESC LIMIT $1;

-- name: open_tables
-- Tables with a free seat: those where somebody already sits first (a
-- person is waiting), then the newest.  A seat given up mid-game is listed
-- too, with the game's scores so far (from its view).
SELECT t.table_id, t.ruleset::text AS ruleset, t.host_name, t.made_from,
       count(*) FILTER (WHERE s.name IS NULL) AS free,
       count(*) AS seats, count(*) FILTER (WHERE s.player_id IS NOT NULL) AS people,
       t.game_number > 0 AS in_progress,
       (SELECT v.public_view->'scores' FROM table_views v
         WHERE v.table_id = t.table_id AND v.game = t.game_number)::text AS scores
  FROM tables t JOIN seats s USING (table_id)
 WHERE t.closed_reason IS NULL
 GROUP BY t.table_id, t.ruleset::text, t.host_name, t.made_from, t.created_at,
          t.game_number
HAVING count(*) FILTER (WHERE s.name IS NULL) > 0
 ORDER BY count(*) FILTER (WHERE s.player_id IS NOT NULL) > 0 DESC, t.created_at DESC,
          t.table_id
 LIMIT $1 OFFSET $2;

-- name: open_tables_count
SELECT count(*) FROM tables AS t
 WHERE t.closed_reason IS NULL
   AND EXISTS (SELECT 1 FROM seats AS s WHERE s.table_id = t.table_id AND s.name IS NULL);

-- name: load_tallies
SELECT stream_id, version, tally::text FROM leaderboard_games WHERE stream_id = ANY ($1);

-- name: save_tallies
INSERT INTO leaderboard_games (stream_id, version, tally)
SELECT * FROM unnest($1::text[], $2::integer[], $3::jsonb[])
ON CONFLICT (stream_id) DO UPDATE SET version = excluded.version, tally = excluded.tally;

-- name: open_tallies
-- The games going on at some tables (patterns TABLE-g%), as far as rated.
SELECT stream_id, version, tally::text FROM leaderboard_games
 WHERE tally IS NOT NULL AND stream_id LIKE ANY ($1::text[]);

-- name: save_game_ratings
-- A game's rating changes (folded once: a game ends once).
INSERT INTO leaderboard_game_ratings (stream_id, player_id, seat, name, bot, before, after)
SELECT * FROM unnest($1::text[], $2::text[], $3::integer[], $4::text[], $5::boolean[],
                     $6::float8[], $7::float8[])
ON CONFLICT (stream_id, player_id) DO NOTHING;

-- name: game_ratings
SELECT player_id, seat, name, bot, before, after FROM leaderboard_game_ratings
 WHERE stream_id = $1 ORDER BY seat;

-- name: game_folded
-- Whether the leaderboard has folded a rated game's end (its tally is done).
SELECT EXISTS (SELECT 1 FROM leaderboard_games WHERE stream_id = $1 AND tally IS NULL);

-- name: load_standings
SELECT preset, player_id, name, bot, mu, sigma, games, won, drawn, hands, points, best_play,
       abandoned
  FROM leaderboard
 WHERE (preset, player_id) IN (SELECT * FROM unnest($1::text[], $2::text[]));

-- name: save_standings
INSERT INTO leaderboard (preset, player_id, name, bot, mu, sigma, rating, games, won, drawn,
                         hands, points, best_play, abandoned)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::boolean[], $5::float8[],
                     $6::float8[], $7::float8[], $8::integer[], $9::integer[], $10::integer[],
                     $11::integer[], $12::integer[], $13::integer[], $14::integer[])
ON CONFLICT (preset, player_id) DO UPDATE
   SET name = excluded.name, mu = excluded.mu, sigma = excluded.sigma,
       rating = excluded.rating, games = excluded.games, won = excluded.won,
       drawn = excluded.drawn, hands = excluded.hands, points = excluded.points,
       best_play = excluded.best_play, abandoned = excluded.abandoned,
       updated_at = clock_timestamp();

-- name: forget_leaderboard
DELETE FROM leaderboard_games;
DELETE FROM leaderboard;
DELETE FROM leaderboard_game_ratings;

-- name: leaderboard_page
SELECT player_id, name, bot, rating, mu, sigma, games, won, drawn, hands, points, best_play,
       abandoned
  FROM leaderboard
 WHERE preset = $1
 ORDER BY rating DESC, player_id
 LIMIT $2 OFFSET $3;

-- name: leaderboard_size
SELECT count(*) FROM leaderboard WHERE preset = $1;

-- name: leaderboard_presets
SELECT preset, count(*) AS players FROM leaderboard GROUP BY preset ORDER BY preset;

-- name: seating_open
INSERT INTO tables (table_id, ruleset, turn_clock_seconds, created_at, made_from)
VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (table_id) DO NOTHING;

-- name: seating_seats
INSERT INTO seats (table_id, seat, bot_level, name, bot_playing)
SELECT $1, seat, bot_level, bot_level_name, bot_level IS NOT NULL
  FROM unnest($2::integer[], $3::text[], $4::text[]) AS x (seat, bot_level, bot_level_name)
ON CONFLICT (table_id, seat) DO NOTHING;

-- name: seating_taken
UPDATE seats SET name = $3, player_id = $4 WHERE table_id = $1 AND seat = $2;

-- name: seating_host
-- The first person who sat: the table is known by their name (muggins.tables.names).
UPDATE tables SET host_name = $2 WHERE table_id = $1 AND host_name IS NULL;

-- name: seating_game
UPDATE tables SET game_number = greatest(game_number, $2) WHERE table_id = $1;

-- name: seating_freed
-- Seats given up mid-game for new people (AbsenceDecided "seat").
UPDATE seats SET name = NULL, player_id = NULL, bot_playing = false
 WHERE table_id = $1 AND seat = ANY ($2::integer[]);

-- name: seating_closed
UPDATE tables SET closed_reason = $2 WHERE table_id = $1;

-- name: seating_bot_playing
UPDATE seats SET bot_playing = $3 WHERE table_id = $1 AND seat = $2 AND bot_level IS NULL;

-- name: forget_seating
DELETE FROM seats;
DELETE FROM tables;
