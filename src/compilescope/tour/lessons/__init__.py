"""The tour's lesson programs: small, ours, each run in its own process (tour/run.py), most of
them under `compilescope run`. A program says what only it can measure (a wall-clock time, an
error it caught) in lines `COMPILESCOPE_TOUR {json}` on stdout (tour/run.py's facts_line); the
rest of each lesson's facts come from the session compilescope saved of the same run."""
