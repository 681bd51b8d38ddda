"""The expert bot: a search over the hidden tiles, from what its seat may know.

* ``knowledge``: the seat's view of a GameState and what the hand's public
  events prove (voids from draws and passes, the lead's proof, opponents'
  choices);
* ``sampler``: deals of the hidden tiles consistent with that knowledge;
* ``position``: a search-only position (ints and bitmasks), checked against
  the engine by tests/expert/test_position.py;
* ``search``: information-set Monte Carlo tree search over sampled deals;
* ``search_random``: the search's own compiled random numbers, seeded from
  the Random it is given;
* ``search_structs``: what the search is told and answers (frozen Structs);
* ``bot``: ``ExpertBot`` (the ``muggins.bots.levels.Bot`` protocol) and ``analyse``.

Pure, like the rules: the standard library, msgspec, mypy_extensions' i64
(a type for the compiler) and ``muggins.rules`` only; no clock but one
injected, no randomness but a Random given.
"""
