"""``--variants``: configured solvers on the command line, checked against the workflow
configuration's solver checks (apart from common.py, so that a command without it, such as a
one-shot ``satdoku dpll``, does not load the configuration). The configuration module (with
the set planning and solver registry it imports) is loaded when a ``--variants`` value is
checked, not when a parser is built: ``satdoku pipeline gather`` and the other stages without
solvers do not pay for it."""

from __future__ import annotations

import argparse
import json


def solver_variants(text: str) -> dict:
    """``--variants``: the JSON of configured solvers ({name: options}), each checked against
    its registry record (an unknown option is one usage line naming it, as in the config)."""
    from satdoku.config import ConfigError, check_solvers

    try:
        variants = json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from None
    if not isinstance(variants, dict) or not all(
            isinstance(v, dict) or v is None for v in variants.values()):
        raise argparse.ArgumentTypeError("must be a JSON object {solver: {option: value}}")
    try:
        check_solvers(variants)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return variants
