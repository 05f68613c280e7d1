"""Specialist backends: one per operation family, chosen by ``conf/critic/specialists/<choice>.yaml``."""
