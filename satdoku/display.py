"""Readable ASCII boards for every family, and PNG renderings for reports.

Sudoku: box separators; Latin squares: plain rows; Futoshiki: ``<``/``>`` between cells and
``v``/``^`` rows between cell rows (the text-grid input format reads it back); 3-D Sudoku:
one 2-D slice per layer along a chosen axis; custom puzzles: rows of their 2-D shape (or one
line). :func:`render_png` draws a board with matplotlib (imported only there).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from satdoku.formats.futoshiki import grid_lines
from satdoku.formats.symbols import ALPHABET
from satdoku.puzzle import CUSTOM, FUTOSHIKI, SUDOKU3D, Puzzle


def _cell(v: int, width: int) -> str:
    if not v:
        return ".".rjust(width)
    return (ALPHABET[v - 1] if width == 1 else str(v)).rjust(width)


def render_board(puzzle: Puzzle, board: Sequence[int] | None = None, indent: str = "") -> str:
    """A board as text lines; Sudoku boxes separated by ``|`` and ``-+-`` rules; other families
    as described in the module docstring."""
    b = puzzle.givens if board is None else board
    if puzzle.kind == SUDOKU3D:
        return render_3d(puzzle, b, indent=indent)
    if puzzle.kind == FUTOSHIKI or (puzzle.less_than and len(puzzle.layout.shape) == 2):
        return render_futoshiki(puzzle, b, indent=indent)
    if puzzle.kind == CUSTOM:
        return _render_custom(puzzle, b, indent)
    n = puzzle.size
    width = 1 if puzzle.domain <= 9 else len(str(puzzle.domain))
    box = puzzle.layout.box
    rows = []
    for r in range(n):
        cells = [_cell(b[r * n + c], width) for c in range(n)]
        if box:
            parts = [" ".join(cells[i : i + box]) for i in range(0, n, box)]
            rows.append(indent + " | ".join(parts))
            if (r + 1) % box == 0 and r + 1 < n:
                seg = "-" * (box * (width + 1) - 1)
                rows.append(indent + "-+-".join([seg] * box))
        else:
            rows.append(indent + " ".join(cells))
    return "\n".join(rows)


def _width(puzzle: Puzzle) -> int:
    return len(str(puzzle.domain))


def render_futoshiki(puzzle: Puzzle, board: Sequence[int] | None = None, indent: str = "") -> str:
    """A Futoshiki (or any 2-D board with ``<`` relations) with its signs drawn in place.

    ``a < b`` between horizontal neighbours is ``<``/``>`` between them; between vertical
    neighbours a sign row holds ``^`` (upper cell smaller) or ``v`` (upper cell greater) under
    the upper cell. Relations between cells that are not neighbours are listed below."""
    lines, other = grid_lines(puzzle, board, indent)
    if other:
        lines.append(indent + "also: " + ", ".join(f"{puzzle.cell_name(a)} < "
                                                   f"{puzzle.cell_name(c)}" for a, c in other))
    return "\n".join(lines)


def render_3d(puzzle: Puzzle, board: Sequence[int] | None = None, axis: int = 0,
              indent: str = "") -> str:
    """A 3-D board as its 2-D slices along ``axis`` (0 layers, 1 rows, 2 columns), each slice
    with separators every n cells (n = the cube's order)."""
    if axis not in (0, 1, 2):
        raise ValueError(f"axis must be 0 (layers), 1 (rows) or 2 (columns), got {axis}")
    b = puzzle.givens if board is None else board
    n = puzzle.size
    order = max(1, math.isqrt(n))
    w = _width(puzzle)
    names = ("layer", "row", "column")
    out = []
    for k in range(n):
        out.append(f"{indent}{names[axis]} {k + 1}:")
        for i in range(n):
            cells = []
            for j in range(n):
                coord = [i, j]
                coord.insert(axis, k)
                v = b[(coord[0] * n + coord[1]) * n + coord[2]]
                cells.append((str(v) if v else ".").rjust(w))
            parts = [" ".join(cells[x:x + order]) for x in range(0, n, order)]
            out.append(indent + "  " + " | ".join(parts))
            if (i + 1) % order == 0 and i + 1 < n and order > 1:
                seg = "-" * (order * (w + 1) - 1)
                out.append(indent + "  " + "-+-".join([seg] * (n // order)))
    return "\n".join(out)


def _render_custom(puzzle: Puzzle, b: Sequence[int], indent: str) -> str:
    w = _width(puzzle)
    shape = puzzle.layout.shape
    cells = [(str(v) if v else ".").rjust(w) for v in b]
    if len(shape) != 2:
        return indent + " ".join(cells)
    cols = shape[1]
    return "\n".join(indent + " ".join(cells[r * cols:(r + 1) * cols]) for r in range(shape[0]))


def render_png(puzzle: Puzzle, board: Sequence[int] | None, path: str, title: str = "") -> None:
    """Draw a board as a PNG: givens in black, solved cells in blue, Sudoku boxes in thick
    lines, Futoshiki signs between cells; 3-D boards as one panel per layer."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    b = puzzle.givens if board is None else board
    if puzzle.kind == SUDOKU3D:
        n = puzzle.size
        slices = [(f"layer {k + 1}", k * n * n, n, n) for k in range(n)]
    else:
        shape = puzzle.layout.shape
        rows_n, cols_n = (shape[0], shape[1]) if len(shape) == 2 else (1, shape[0])
        slices = [("", 0, rows_n, cols_n)]
    cols = min(len(slices), 4)
    rows = -(-len(slices) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 3.2 * rows), squeeze=False)
    fontsize = max(4, 14 - max(s[2] for s in slices) // 3)
    for ax in axes.flat[len(slices):]:
        ax.axis("off")
    for ax, (label, offset, rows_n, cols_n) in zip(axes.flat, slices, strict=False):
        _draw_slice(ax, puzzle, b, offset, rows_n, cols_n, fontsize)
        if label:
            ax.set_title(label, fontsize=9)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _draw_slice(ax, puzzle: Puzzle, b: Sequence[int], offset: int, rows_n: int, cols_n: int,
                fontsize: int) -> None:  # type: ignore[no-untyped-def]
    """One 2-D grid of cells ``offset``.. onto a matplotlib axis (y grows downwards)."""
    ax.set_xlim(0, cols_n)
    ax.set_ylim(rows_n, 0)
    ax.set_aspect("equal")
    ax.axis("off")
    box = puzzle.layout.box or (math.isqrt(rows_n) if puzzle.kind == SUDOKU3D else 0)
    for i in range(rows_n + 1):
        thick = 2.0 if box and i % box == 0 else 0.6
        ax.plot([0, cols_n], [i, i], color="black", lw=thick if i in (0, rows_n) or box else 0.6)
    for j in range(cols_n + 1):
        thick = 2.0 if box and j % box == 0 else 0.6
        ax.plot([j, j], [0, rows_n], color="black", lw=thick if j in (0, cols_n) or box else 0.6)
    for r in range(rows_n):
        for c in range(cols_n):
            cell = offset + r * cols_n + c
            v = b[cell]
            if v:
                given = bool(puzzle.givens[cell])
                ax.text(c + 0.5, r + 0.5, str(v), ha="center", va="center", fontsize=fontsize,
                        color="black" if given else "tab:blue",
                        fontweight="bold" if given else "normal")
    if puzzle.kind == SUDOKU3D:
        return
    for a, c2 in puzzle.less_than:  # signs at the shared edge, pointing to the smaller cell
        ra, ca = divmod(a, cols_n)
        rb, cb = divmod(c2, cols_n)
        if abs(ra - rb) + abs(ca - cb) != 1:
            continue
        x, y = (ca + cb + 1) / 2, (ra + rb + 1) / 2
        sign = ("<" if ca < cb else ">") if ra == rb else ("^" if ra < rb else "v")
        ax.text(x, y, sign, ha="center", va="center", fontsize=fontsize, color="tab:red",
                bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none"})
