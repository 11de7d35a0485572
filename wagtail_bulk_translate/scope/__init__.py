"""What a run translates: the scope JSON, its validation and its streaming enumeration."""
