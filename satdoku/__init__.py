"""satdoku: Sudoku-family puzzle files in, checked evidence out (CNF, solver runs, reports)."""

__version__ = "0.1.0"
