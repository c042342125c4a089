"""Views of a Session: the terminal (console.py, its sections in sections/, its toolkit in
terminal.py), the HTML report (html.py), .py files (pyfiles.py), sections written once for both
as blocks (blocks.py), and the few lines `compilescope run` prints for a program that never
imported torch (plain.py)."""

# The details a compiled function's block can show, by name: render.sections.functions draws
# them, and the commands' --show picks them (cli/options.py, which must not load rich to list them).
DETAILS = ("graph", "guards", "dynamic", "aot", "kernels", "code", "time")
