"""A trace's records read into a Session, one module per record family (session/build.py says
which; kinds.py is the table of which family reads which kind). The entry points are
session/build.py's: this package holds what they are built from."""
