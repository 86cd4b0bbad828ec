"""Golden test vectors of the dealer protocol (golden.json), shared by host and firmware tests."""
