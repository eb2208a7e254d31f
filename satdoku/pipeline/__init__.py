"""Stage logic behind the Snakemake rules: each stage reads and writes one shard's files."""
