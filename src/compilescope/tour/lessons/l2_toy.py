"""Lesson 2: the idea, in plain Python (no torch): a wrapper, a guard, and a cache of versions;
a call whose guard matches reuses a version, another compiles a new one."""

import time

from common import say


class LittleCompile:
    def __init__(self, program):
        self.program = program
        self.cache = {}  # one finished version for each guard

    def __call__(self, numbers):
        guard = (len(numbers), type(numbers[0]).__name__)
        if guard in self.cache:
            say(call=repr(numbers), guard=repr(guard), compiled=False)
        else:
            time.sleep(0.2)  # stands in for the real work of compiling
            self.cache[guard] = self.program
            say(call=repr(numbers), guard=repr(guard), compiled=True)
        return self.cache[guard](numbers)


def double_all(numbers):
    return [n * 2 for n in numbers]


compiled = LittleCompile(double_all)
for numbers in ([1, 2, 3], [4, 5, 6], [1, 2, 3, 4], [1.5, 2.5, 3.5], [7, 8, 9]):
    compiled(numbers)
say(versions=len(compiled.cache))
