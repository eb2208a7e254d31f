#!/usr/bin/env bash
# Snakemake runs this inside the new conda environment, from the working directory of the run
# (the repository root): install satdoku itself, editable, building its C extensions.
set -euo pipefail
python -m pip install --no-deps --no-build-isolation -e .
