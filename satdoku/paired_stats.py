"""Paired statistics of two runs' per-instance times, shared by the reports (pairs.csv,
:mod:`satdoku.report.pairs`) and run comparison (``satdoku compare``,
:mod:`satdoku.runs.compare`), so neither reaches into the other: the ratio floor, the median
ratio, its seeded percentile-bootstrap 95% interval and the Wilcoxon signed-rank test.

numpy and scipy are imported inside the functions (heavy).
"""

from __future__ import annotations

import math

#: Times below this are taken as this (the times files' resolution) in ratios.
TIME_FLOOR = 1e-6
#: Bootstrap resamples of the median ratio's 95% interval, and its seed (same data, same CI).
RESAMPLES, SEED = 1000, 0


def median(ratios) -> float:
    """The median of ``ratios``; NaN without any."""
    import numpy as np

    return float(np.median(np.asarray(ratios, dtype=float))) if len(ratios) else math.nan


def bootstrap_median_ci(ratios, resamples: int = RESAMPLES, seed: int = SEED
                        ) -> tuple[float, float]:
    """The percentile bootstrap 95% interval of the median of ``ratios`` (seeded), in
    batches so that a million pairs stay within memory."""
    import numpy as np

    x = np.asarray(ratios, dtype=float)
    n = len(x)
    if n == 0:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    batch = max(1, min(resamples, 4_000_000 // n))
    meds = []
    for start in range(0, resamples, batch):
        k = min(batch, resamples - start)
        meds.append(np.median(x[rng.integers(0, n, size=(k, n))], axis=1))
    lo, hi = np.percentile(np.concatenate(meds), [2.5, 97.5])
    return float(lo), float(hi)


def wilcoxon_p(a, b) -> float:
    """``scipy.stats.wilcoxon(a, b)`` with its defaults (two-sided); NaN where it is undefined
    (no pair, or every difference zero)."""
    import warnings

    if len(a) == 0:
        return math.nan
    from scipy.stats import wilcoxon

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            p = float(wilcoxon(a, b).pvalue)
        except ValueError:
            return math.nan
    return p
