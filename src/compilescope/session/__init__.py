"""The Session (model.py): built from trace records (build.py), saved and loaded as JSON
(jsonio.py); a session with nothing compiled can also be written without the model (empty.py)."""

SCHEMA = "compilescope/1"  # the saved session's format (docs/schema.md)
