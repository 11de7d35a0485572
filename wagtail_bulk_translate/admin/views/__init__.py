"""One module per screen of the admin."""
