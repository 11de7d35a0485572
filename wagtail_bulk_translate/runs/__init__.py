"""What editors do to runs (start, preflight, controls, summaries); api.py re-exports it."""
