-- A player may rotate their identity's secret ("sign out my other
-- browsers": POST /players/{id}/secret).  The service's role may change that
-- one column of players, nothing else of it: ids stay as they were given.
GRANT UPDATE (secret_hash) ON players TO muggins_service;
