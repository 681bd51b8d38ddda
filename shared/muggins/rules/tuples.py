"""Small helpers for the immutable tuples the state is made of."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def with_item(items: tuple[T, ...], index: int, item: T) -> tuple[T, ...]:
    """``items`` with the one at ``index`` replaced: one new tuple, nothing else."""
    size = len(items)
    if size == 2:  # two seats, or a layout's two arms: the common case
        return (item, items[1]) if index == 0 else (items[0], item)
    if size == 4:  # four seats, or a spinner's four arms
        if index == 0:
            return (item, items[1], items[2], items[3])
        if index == 1:
            return (items[0], item, items[2], items[3])
        if index == 2:
            return (items[0], items[1], item, items[3])
        return (items[0], items[1], items[2], item)
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
