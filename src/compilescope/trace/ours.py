"""The records compilescope's own capture adds to a trace (torch never writes these names).

Kept apart from the reader so that the recorder, which writes them inside the user's process,
names them without loading the reader (a program that never imports torch pays for no more
than it needs). session/records/program.py, calls.py and memory.py read them
(session/records/kinds.py: which module reads each kind).
"""

CAPTURE_RECORD = "compilescope_capture"  # the first line of a trace compilescope writes
ENVIRONMENT_RECORD = "compilescope_environment"
PROGRAM_RECORD = "compilescope_program"
# In CAPTURE_RECORD's facts: true where the trace is `compilescope run`'s of its program, which
# writes PROGRAM_RECORD when the program ends (a trace of one without it: the program was killed)
PROGRAM_END_KEY = "records_program_end"
CALLS_RECORD = "compilescope_calls"
GENERATED_CODE_RECORD = "compilescope_generated_code"
CHILDREN_RECORD = "compilescope_children"
FIXES_RECORD = "compilescope_fixes"  # what `run --try` set before the program compiled
COMPILED_MODULES_RECORD = "compilescope_compiled_modules"  # modules torch.compile wrapped (record/modules.py)
ACCURACY_RECORD = "compilescope_accuracy"  # run --check-accuracy: one checked call of a compiled graph (record/accuracy.py)
ACCURACY_CALL_RECORD = "compilescope_accuracy_call"  # one checked call of a torch.compile'd function as a whole (record/accuracy_calls.py)
ACCURACY_END_RECORD = "compilescope_accuracy_end"  # the checks' cost; which stage made each differing graph differ, its minifier script
MEMORY_RECORD = "compilescope_memory"  # the program's memory as it ended (record/memory.py)
