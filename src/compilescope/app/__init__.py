"""The application layer: what compilescope does for a command or a call, between the command
line (cli/) and the layers it drives (record, session, findings, render, outputs).

    plan.py           RunPlan: everything one `compilescope run` needs, built from its arguments
    pipeline.py       the run's steps: launch -> capture -> build -> explain -> write
    launch.py         the program started and ended as python does (the launch step)
    outputs.py        where the run writes, checked before the program starts (the write step's plan)
    try_fix.py        run --try: the pipeline twice, with the plan copied and its fixes changed
    __main__.py       python -m compilescope.app PLAN.json: one run of a plan in a fresh process
    view.py           the terminal view's options, shared by run and report
    decompiled_files.py  the .py files run --decompile and decompile write
    report.py         report's reading (also diff's and check's) and its one-session explanation
    cluster.py        report on a job's ranks: each rank read in a worker process, then compared
    zoo.py            the zoo's per-model examination, and the sweep's bookkeeping
    api.py            the Python API's capture(), explain() and the Jupyter cell magic
    errors.py         CommandError: a problem with what was asked, said in one line

Nothing below imports this package; cli/ imports it. Importing it imports nothing (run pays for
each import before the program starts).
"""
