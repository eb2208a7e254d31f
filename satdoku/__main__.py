"""`python -m satdoku` = the `satdoku` command."""

import gc
import sys

gc.disable()  # for the imports: satdoku.cli.main turns it on again (cli._started)

from satdoku.cli import main  # noqa: E402

sys.exit(main())
