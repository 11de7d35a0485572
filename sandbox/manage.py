#!/usr/bin/env python
"""The demo site's manage.py: runs from any directory, with the plugin imported from the repo."""

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    sys.path[:0] = [str(HERE), str(HERE.parent)]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sandbox.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
