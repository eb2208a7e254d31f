"""CNF side of the pipeline: the formula type, DIMACS I/O, encodings and decoding."""
