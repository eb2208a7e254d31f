"""Reports: per-instance text, per-set tables and plots, cross-set summaries."""
