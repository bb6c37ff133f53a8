"""A system's tables: ``file`` (a table file, TOML, decoded into typed Structs and refused
with its place) and ``browse`` (the tables as a player browses them).

It may import the base modules and the systems registry only.
"""
