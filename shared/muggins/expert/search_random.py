"""The search's own random numbers: xoshiro128** seeded from the Random the bot is given.

Why not ``random.Random`` itself: a decision draws a few million numbers (a
deal's shuffle, the tree's untried plays, every playout move), and each
call of a Random's method from compiled code is a call into the
interpreter's machinery that cost about a tenth of the search.  This
generator is compiled with the search (hatch_build.py), so a draw is a few
integer operations.  It is still deterministic: the search seeds it from
the Random it is given, so a fixed seed gives the same decisions.

xoshiro128** (Blackman and Vigna, 2018): 128 bits of state in four 32-bit
words, period 2**128 - 1, and it passes the usual statistical batteries.
Its words are ``i64``: machine integers when compiled (plain C arithmetic,
no reference counts), plain ints when not.  Every value stays below 2**43,
and ``below``'s product below 2**59, so nothing overflows in either.
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import i64

_WORD: Final[i64] = 0xFFFFFFFF
#: The same mask as a plain int, for the seeding's products of two words
#: (up to 2**64: too big for an i64, exact as an int).
_INT_WORD: Final = 0xFFFFFFFF
#: 2**-32: a 32-bit draw as a float in [0, 1).
_UNIT: Final = 1.0 / 4294967296.0


def _splitmix32(state: int) -> tuple[int, int]:
    """The next state and output of a 32-bit splitmix: spreads a seed over the words."""
    state = (state + 0x9E3779B9) & _INT_WORD
    z = state
    z = ((z ^ (z >> 16)) * 0x85EBCA6B) & _INT_WORD
    z = ((z ^ (z >> 13)) * 0xC2B2AE35) & _INT_WORD
    return state, z ^ (z >> 16)


class SearchRandom:
    """A fast, seedable source of random numbers for one search."""

    __slots__ = ("s0", "s1", "s2", "s3")

    s0: i64
    s1: i64
    s2: i64
    s3: i64

    def __init__(self, s0: i64, s1: i64, s2: i64, s3: i64) -> None:
        """A generator in this state (four 32-bit words, not all zero);
        ``from_seed`` makes one from a seed."""
        self.s0 = s0
        self.s1 = s1
        self.s2 = s2
        self.s3 = s3

    @staticmethod
    def from_seed(seed: int) -> SearchRandom:
        """Seeded from up to 128 bits of ``seed`` (the search passes
        ``Random.getrandbits(128)``); a smaller seed is as good a start."""
        seed = abs(seed)
        words = []
        state = 0
        for chunk in range(4):
            state, word = _splitmix32(state ^ (seed >> 32 * chunk) & _INT_WORD)
            words.append(word)
        if not any(words):
            words[0] = 1  # the one state xoshiro never leaves
        return SearchRandom(words[0], words[1], words[2], words[3])

    def next_word(self) -> i64:
        """A uniform 32-bit integer."""
        s0 = self.s0
        s1 = self.s1
        s2 = self.s2
        s3 = self.s3
        times_five = ((s1 << 2) + s1) & _WORD
        rotated = ((times_five << 7) | (times_five >> 25)) & _WORD
        result = ((rotated << 3) + rotated) & _WORD
        shifted = (s1 << 9) & _WORD
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= shifted
        self.s0 = s0
        self.s1 = s1
        self.s2 = s2
        self.s3 = ((s3 << 11) | (s3 >> 21)) & _WORD
        return result

    def spawn(self) -> SearchRandom:
        """A new generator seeded from this one's next four words (cheaper
        than seeding from an int, for a search that needs many)."""
        return SearchRandom(
            self.next_word(), self.next_word(), self.next_word(),
            self.next_word() | 1,  # never the all-zero state
        )

    def copy(self) -> SearchRandom:
        """A generator that will draw the same numbers as this one from here."""
        return SearchRandom(self.s0, self.s1, self.s2, self.s3)

    def random(self) -> float:
        """A float in [0, 1) (32 bits of resolution, plenty for a playout's choices)."""
        return float(self.next_word()) * _UNIT

    def below(self, n: i64) -> i64:
        """A uniform integer in [0, n) for 0 < n < 2**30: 29 random bits
        times n, shifted back (both factors below 2**30, see above).  The
        bias is under n / 2**29, far below anything a search can see."""
        return ((self.next_word() >> 3) * n) >> 29
