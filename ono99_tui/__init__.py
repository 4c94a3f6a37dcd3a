"""ono99: the card game O'NO 99 in the terminal."""

__version__ = "0.1.0"
