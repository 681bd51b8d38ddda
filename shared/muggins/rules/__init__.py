"""The pure rules core of muggins: tiles, rulesets, the layout and its count,
the seeded shuffle, commands, events, and the game's decide/evolve.

Imports the standard library and msgspec only (a test keeps it so).
"""
