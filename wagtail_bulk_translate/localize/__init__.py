"""Everything that talks to wagtail-localize: source strings, target writes, site settings."""
