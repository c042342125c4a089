"""Views of a Session: the terminal (console.py, its sections in sections/, its toolkit in
terminal.py), the HTML report (html.py), .py files (pyfiles.py), sections written once for both
as blocks (blocks.py), and the few lines `compilescope run` prints for a program that never
imported torch (plain.py). (The details a compiled function's block can show, by name, are in
compilescope/choices.py: the commands' --show lists them without loading this layer.)"""
