# Source this to point SLURM clients (sinfo, squeue, sbatch, sacct, snakemake's slurm executor)
# at the test cluster started by up.sh:   source scripts/slurm/env.sh
# shellcheck source=common.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"
