"""Undoing a run: snapshots taken before each write, and the background revert."""
