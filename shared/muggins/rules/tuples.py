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
    remaining = list(items)
    remaining.remove(item)
    return tuple(remaining)
