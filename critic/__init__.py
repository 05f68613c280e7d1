"""critic stage."""
