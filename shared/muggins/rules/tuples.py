"""Small helpers for the immutable tuples the state is made of."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def with_item(items: tuple[T, ...], index: int, item: T) -> tuple[T, ...]:
    """``items`` with the one at ``index`` replaced: one new tuple, nothing else."""
    if len(items) == 2:  # two seats, or a layout's two arms: the common case
        return (item, items[1]) if index == 0 else (items[0], item)
    changed = list(items)
    changed[index] = item
    return tuple(changed)


def without(items: tuple[T, ...], item: T) -> tuple[T, ...]:
    """``items`` without the first ``item`` (which it holds)."""
    # Usually ``item`` is the very object held (a play chosen from the legal
    # ones): find it by identity, a pointer test, before comparing values.
    remaining = []
    found = False
    for other in items:
        if other is item and not found:
            found = True
        else:
            remaining.append(other)
    if not found:  # an equal object, say decoded from a stored event
        remaining = list(items)
        remaining.remove(item)
    return tuple(remaining)
