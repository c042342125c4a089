"""The terminal's sections, one module per part of the explanation, composed in order by
render/console.py: overview.py (the header, the counts, the findings, the child processes),
functions.py (each compiled function and its versions), runtime.py (bench's table and the kernel
time table, written as views: render/blocks.py). Each prints through render/terminal.py."""
