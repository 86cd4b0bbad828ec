"""cardtable's hands: the serial link to the dealer machine and seat LEDs, its simulator, GPIO."""
