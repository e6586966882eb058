"""All of the ``jbof`` command line (the only package that imports click).

``main`` is the root group (control/cli/root.py); each command group lives in a
module named after it (``sim``, ``serve``, ``admin``: config/tenant/drive/stats,
``bench``, ``forecast``, ``tune``); control/cli/common.py holds the shared
error handling and option parsers.  ``python -m control.cli`` runs ``main``.
"""
from control.cli.root import main

__all__ = ["main"]
