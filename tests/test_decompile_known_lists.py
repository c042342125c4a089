"""Dynamo's lists of frame values written out (decompiler/known_lists.py): where that is exact,
and every case where it is not, left as it was.

The end-to-end check is tests/test_decompile_dynamo.py (Dynamo's real code, decompiled and called
with the arguments it got); these are the rules, on statements as the decompiler writes them."""

from __future__ import annotations

import ast

import pytest

from compilescope.decompiler.known_lists import written_out
from compilescope.decompiler.values import Temporaries


def _written(source: str) -> str:
    code = compile("def f(): pass", "<test>", "exec").co_consts[0]
    body = ast.parse(source).body
    return ast.unparse(ast.Module(body=written_out(body, Temporaries(code)), type_ignores=[]))


def test_torch_213_frame_values_are_written_out() -> None:
    # built, sliced, extended, reordered, popped: what the resume function is called with
    source = (
        "__temp8 = [graph_out_0[1]][0:1]\n"
        "__temp8.extend([b])\n"
        "del graph_out_0\n"
        "__stack2 = [__temp8]\n"
        "__stack2[0][0:0] = []\n"
        "__temp10 = [__stack2[0]]\n"
        "__temp12 = __temp10[0]\n"
        "__temp12[0:] = [__temp12[1], __temp12[0]]\n"
        "__temp15 = __temp10[-1]\n"
        "del __temp10[-1]\n"
        "return __resume_at_102_2([], __temp10, *__temp15)"
    )
    written = _written(source)
    # the graph's output is read where it was (before the del), into a temporary of its own
    assert written.startswith("__temp1 = graph_out_0[1]\ndel graph_out_0\n"), written
    assert written.endswith("return __resume_at_102_2([], [], b, __temp1)"), written


@pytest.mark.parametrize(
    "source",
    [
        # written out on one side of an if, then again after it: two lists where there was one
        "__temp1 = [a]\nif c:\n    g(__temp1)\nreturn h(__temp1)",
        # changed after it was passed on: whoever holds it would see the change
        "__temp1 = [a]\nk(__temp1)\n__temp1.extend([b])\nreturn h(__temp1)",
        # a name it holds is rebound before it is used
        "__temp1 = [a]\na = 3\nreturn h(__temp1)",
        # passed twice (once inside another list): one object, not two displays
        "__temp1 = [a]\n__temp2 = [__temp1]\nreturn h(__temp2, __temp1)",
        # changed in a way not followed
        "__temp1 = [a]\n__temp1.sort()\nreturn h(__temp1)",
        # read inside a loop: written out once per turn would be a new list each time
        "__temp1 = [a]\nfor x in y:\n    g(__temp1)\nreturn h(__temp1)",
    ],
)
def test_anything_not_followed_leaves_the_code_as_it_was(source: str) -> None:
    assert _written(source) == ast.unparse(ast.parse(source))
