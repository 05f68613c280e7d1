"""control stage."""
