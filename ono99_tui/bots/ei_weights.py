"""Weights of the trained play-out policy (bots/trained.py): a placeholder (all zero: medium's play)
until benchmarks/train_policy.py writes them."""

MARGIN = 0.0
COEF = (0.0,) * 115
