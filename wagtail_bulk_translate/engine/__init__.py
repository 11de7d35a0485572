"""The background engine: plain Python over the models, taking ids, knowing nothing of HTTP.

Read in this order: ``coordinator`` (scope → units) and ``sampling`` (canaries); ``worker``
(the loop), ``claims``, then one file per step of a claim: ``prepare``, ``plan``,
``translate``, ``write``; ``failures``, ``pauses`` and ``finish`` for how units and runs end;
``janitor`` for what crashes leave behind.
"""
