"""``python -m control.cli``: the ``jbof`` command."""
from control.cli.root import main

main()
