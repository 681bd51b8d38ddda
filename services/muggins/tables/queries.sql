-- name: insert_table
INSERT INTO tables (table_id, ruleset, turn_clock_seconds) VALUES ($1, $2, $3);

-- name: insert_seat
INSERT INTO seats (table_id, seat, bot_level, name, bot_playing) VALUES ($1, $2, $3, $4, $5);

-- name: get_table
SELECT table_id, ruleset::text, turn_clock_seconds, game_number FROM tables WHERE table_id = $1;

-- name: get_seats
SELECT seat, bot_level, name, player_id, token_hash, bot_playing
  FROM seats WHERE table_id = $1 ORDER BY seat;

-- name: take_seat
UPDATE seats SET name = $3, player_id = $4, token_hash = $5, taken_at = clock_timestamp()
 WHERE table_id = $1 AND seat = $2 AND name IS NULL AND bot_level IS NULL
RETURNING seat;

-- name: free_seats
SELECT count(*) FROM seats WHERE table_id = $1 AND name IS NULL;

-- name: start_game
UPDATE tables SET game_number = game_number + 1
 WHERE table_id = $1 AND game_number = $2
RETURNING game_number;

-- name: set_bot_playing
UPDATE seats SET bot_playing = $3 WHERE table_id = $1 AND seat = $2 AND bot_level IS NULL;

-- name: find_seat_by_token
SELECT seat FROM seats WHERE table_id = $1 AND token_hash = $2;

-- name: insert_player
INSERT INTO players (player_id, secret_hash) VALUES ($1, $2);

-- name: player_secret_hash
SELECT secret_hash FROM players WHERE player_id = $1;
