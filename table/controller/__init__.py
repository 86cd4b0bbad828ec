"""The table controller: one loop, a referee per game, the journal, overrides, dealing."""
