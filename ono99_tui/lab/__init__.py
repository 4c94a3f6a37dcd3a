"""Headless experiments: many bot games at once (`ono99 simulate`, `ono99 rules compare`)."""
