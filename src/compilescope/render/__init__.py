"""Views of a Session: the terminal (console.py), the HTML report (html.py), .py files (pyfiles.py),
and the few lines `compilescope run` prints for a program that never imported torch (plain.py).
(The details a compiled function's block can show, by name, are in compilescope/choices.py: the
commands' --show lists them without loading this layer.)"""
