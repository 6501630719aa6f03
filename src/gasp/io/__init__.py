"""Reading and writing tables of generations (CSV, TSV, Parquet, JSON Lines, JSON)."""

from gasp.io._tables import TABLE_FORMATS, read_generations, read_table, write_table

__all__ = ["TABLE_FORMATS", "read_generations", "read_table", "write_table"]
