"""Errors every layer may raise for the command line to print (no imports: no cycles)."""


class UserError(Exception):
    """A problem with the user's input: printed as is, exit 2."""
