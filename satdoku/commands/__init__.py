"""One module per CLI command: ``add_arguments(parser)`` and ``run(args) -> int``; a one-shot
command may also list its arguments as a table, ``ARGUMENTS`` (see
:mod:`satdoku.commands.plain_args`)."""
