"""The static results explorer (issue 13): ``reports/explorer/index.html`` and its data files.

:func:`satdoku.report.explorer.site.build_explorer` writes it; :mod:`.data` is its one door to
the stage files; ``static/`` holds the page, its JavaScript and CSS (package data). Open
``index.html`` in a browser: no server, no network.
"""
