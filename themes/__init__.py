"""The shipped theme files (themes/ at the repository root, installed as ono99_tui.themes)."""
