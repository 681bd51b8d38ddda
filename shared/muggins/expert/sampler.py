"""Deals consistent with what a seat knows: the other hands and the boneyard.

Each deal gives every other seat as many tiles as it holds, each group of
its tiles (``knowledge``) only tiles that group can be, and the boneyard
the rest, in a random drawing order.  Groups are filled most constrained
first, each uniformly from what is left; when that runs into a dead end a
few times, a matching (augmenting paths, in random order) finds a
consistent deal, which always exists: the real one is.

Soft weights: with ``missed_points_weight`` below 1, a deal in which another
seat held a tile that would have scored more than the play it chose is kept
only with that probability, once per such choice (rejection, so the deals
kept follow the weights exactly).  A player who could have scored 20 with
the 4-4 and did not probably lacks it.
"""

from __future__ import annotations

from typing import Final

from muggins.expert.knowledge import Knowledge
from muggins.expert.position import indices
from muggins.expert.search_random import SearchRandom

#: Dead ends allowed before the matching takes over.
_RETRIES: Final = 12
#: Deals refused by the soft weights before one is taken anyway.
_WEIGHT_RETRIES: Final = 24


def shuffle(items: list[int], rng: SearchRandom) -> None:
    """``items`` in a uniformly random order, in place (Fisher-Yates from the
    front: each position takes a uniform pick of those not yet placed, the
    way ``DealSampler._fill`` draws its order only as far as it reads it).
    ``Random.shuffle`` is Python code: once a simulation, the interpreter
    running it cost more than the compiled sampler around it."""
    for position in range(len(items) - 1):
        draw_into(items, position, rng)


def draw_into(items: list[int], position: int, rng: SearchRandom) -> int:
    """One step of Fisher-Yates from the front: a uniform pick of
    ``items[position:]`` swapped into ``position``; the pick."""
    other = position + rng.below(len(items) - position)
    picked = items[other]
    items[other] = items[position]
    items[position] = picked
    return picked


class DealSampler:
    """Samples the hidden tiles for one seat's knowledge (built once per decision)."""

    def __init__(self, knowledge: Knowledge, missed_points_weight: float = 1.0) -> None:
        self.knowledge = knowledge
        self.unseen = knowledge.unseen
        self.missed_points_weight = missed_points_weight
        slots = []
        for seat, groups in enumerate(knowledge.groups):
            for place, group in enumerate(groups):
                if group.count:
                    allowed = self.unseen & ~group.excluded
                    slots.append((allowed.bit_count(), seat, place, group.count, allowed))
        slots.sort()
        #: (seat, group's place, count, allowed tiles), the most constrained first.
        self.slots = [(seat, place, count, allowed) for _, seat, place, count, allowed in slots]
        self.seats = len(knowledge.groups)
        #: The unseen tiles in the order of the deal being drawn (reused: a
        #: uniform shuffle of any order is uniform).
        self.order = indices(self.unseen)
        hidden = sum(count for _, _, count, _ in self.slots)
        if hidden + knowledge.view.boneyard_size != self.unseen.bit_count():
            raise ValueError("the hand sizes and the boneyard do not add up to the unseen tiles")
        #: Per choice that the weights read: the slots holding tiles the seat held
        #: then, the tiles it played since, and the tiles that would have scored more.
        self.choices: list[tuple[list[int], int, int]] = []
        if missed_points_weight < 1.0:
            for choice in knowledge.choices:
                better = 0
                for tile, points in enumerate(choice.points_by_tile):
                    if points > choice.points:
                        better |= 1 << tile
                if not better:
                    continue  # nothing the seat might have held scored more
                held_slots = [
                    number
                    for number, (seat, place, _, _) in enumerate(self.slots)
                    if seat == choice.seat and place < choice.groups_then
                ]
                self.choices.append((held_slots, choice.played_since, better))

    def deal(self, rng: SearchRandom) -> tuple[list[int], list[int]]:
        """Hidden hands (a mask per seat; 0 for the knowing seat) and the boneyard.

        The boneyard is a list of tile indices in drawing order from its end.
        """
        for _ in range(_WEIGHT_RETRIES):
            filled, taken = self._fill(rng)
            if self._kept(filled, rng):
                break
        hands = [0] * self.seats
        slots = self.slots
        for number in range(len(slots)):
            seat = slots[number][0]
            hands[seat] = hands[seat] | filled[number]
        # The tiles left, in an order of their own: not the order the slots
        # read, where the tiles a slot could not take come first (so a seat's
        # proven voids would be drawn last).  The weights judged the hands
        # alone, so only a deal kept has its boneyard shuffled.
        boneyard = [tile for tile in self.order if not taken >> tile & 1]
        shuffle(boneyard, rng)
        return hands, boneyard

    def _fill(self, rng: SearchRandom) -> tuple[list[int], int]:
        """Tiles for each slot (as masks, in ``slots`` order), and the tiles
        the slots took."""
        order = self.order
        n = len(order)
        for _ in range(_RETRIES):
            # A slot takes the first tiles it may of one random order of the
            # unseen: a uniform choice among what it may take and is left.
            # The order is drawn only as far as the slots read it.
            drawn = 0
            taken = 0
            filled = []
            for _, _, count, allowed in self.slots:
                mask = 0
                need = count
                position = 0
                while need and position < n:
                    if position == drawn:
                        tile = draw_into(order, drawn, rng)
                        drawn += 1
                    else:
                        tile = order[position]
                    position += 1
                    bit = 1 << tile
                    if allowed & bit and not taken & bit:
                        mask |= bit
                        need -= 1
                if need:
                    break
                filled.append(mask)
                taken |= mask
            else:
                return filled, taken
        filled = self._matched(rng)
        taken = 0
        for mask in filled:
            taken |= mask
        return filled, taken

    def _matched(self, rng: SearchRandom) -> list[int]:
        """A consistent filling found by augmenting paths, units and tiles in random order."""
        units = [slot for slot, (_, _, count, _) in enumerate(self.slots) for _ in range(count)]
        shuffle(units, rng)
        owner: dict[int, int] = {}  # tile -> unit number

        def augment(unit: int, visited: set[int]) -> bool:
            candidates = indices(self.slots[units[unit]][3] & self.unseen)
            shuffle(candidates, rng)
            for tile in candidates:
                if tile in visited:
                    continue
                visited.add(tile)
                if tile not in owner or augment(owner[tile], visited):
                    owner[tile] = unit
                    return True
            return False

        for unit in range(len(units)):
            if not augment(unit, set()):
                raise ValueError("no deal is consistent with this knowledge")
        filled = [0] * len(self.slots)
        for tile, unit in owner.items():
            filled[units[unit]] |= 1 << tile
        return filled

    def _kept(self, filled: list[int], rng: SearchRandom) -> bool:
        """Whether the soft weights keep this filling (always, when they are off)."""
        if not self.choices:
            return True
        weight = 1.0
        for held_slots, held, better in self.choices:
            for number in held_slots:
                held |= filled[number]
            if held & better:
                weight *= self.missed_points_weight
        return weight >= 1.0 or rng.random() < weight
