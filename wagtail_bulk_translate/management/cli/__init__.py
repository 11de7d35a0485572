"""The ``bulk_translate`` command line, one module per group of subcommands.

``arguments`` builds the parser, ``start`` starts runs (or estimates them), ``controls`` acts on
a run, ``reports`` shows runs and units, ``waiting`` follows a run until it ends. The command
module only dispatches.
"""
