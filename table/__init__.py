"""cardtable's table side: cards, game engines, referee, controller and journal."""
