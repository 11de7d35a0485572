"""The background engine: plain Python over the models, taking ids, knowing nothing of HTTP."""
