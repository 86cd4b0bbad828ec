"""The demo table: a simulated world (bots, sim camera, sim dealer, mock GPIO) watched by the real
controller pipeline. ``cardtable demo`` runs it."""
