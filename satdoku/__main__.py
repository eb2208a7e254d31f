"""`python -m satdoku` = the `satdoku` command."""

import sys

from satdoku.cli import main

sys.exit(main())
