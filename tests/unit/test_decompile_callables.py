"""compilescope.decompile() on every kind of callable a user hands it: the function behind it,
with what the callable adds (a partial's bound arguments, the object a method is bound to, a
staticmethod's decorator) said above it, and a clear error naming anything without bytecode."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from compilescope.decompiler import decompile


def scale(x, factor=2, *, shift=0):  # noqa: ANN001, ANN201
    return x * factor + shift


class Counter:
    step = 3

    def add(self, x):  # noqa: ANN001, ANN201
        return x + self.step

    @staticmethod
    def twice(x):  # noqa: ANN001, ANN205
        return x * 2

    @classmethod
    def named(cls, x):  # noqa: ANN001, ANN206
        return f"{cls.__name__}:{x}"

    def __call__(self, y):  # noqa: ANN001, ANN204
        return y - self.step

    scaled = functools.partialmethod(scale, 10)


def _defined(source: str) -> Any:
    """The function the source defines (it must compile and run as Python)."""
    namespace: dict[str, Any] = {}
    exec(compile(source, "<decompiled>", "exec"), namespace)
    (function,) = [v for k, v in namespace.items() if k != "__builtins__"]
    return function


def test_a_partial_is_its_function_with_the_arguments_it_binds() -> None:
    source = decompile(functools.partial(scale, 5, shift=1))
    assert source.startswith("# functools.partial of scale, which binds x=5, shift=1\ndef scale(x, factor=2, *, shift=0):")
    assert _defined(source)(5, shift=1) == scale(5, shift=1)
    method = decompile(vars(Counter)["scaled"])
    assert method.startswith("# functools.partialmethod of scale, which binds factor=10\n")


def test_methods_say_what_they_are_bound_to_and_static_and_class_methods_keep_their_decorator() -> None:
    bound = decompile(Counter().add)
    assert bound.startswith("# Counter.add, a method bound to a Counter object (self)\ndef add(self, x):")
    assert decompile(Counter.named).startswith("# Counter.named, a method bound to the class Counter\ndef named(cls, x):")
    static = decompile(vars(Counter)["twice"])
    assert static.startswith("@staticmethod\ndef twice(x):")
    assert _defined(static)(4) == 8  # (a staticmethod object is callable: the source still runs)
    assert decompile(vars(Counter)["named"]).startswith("@classmethod\ndef named(cls, x):")
    assert decompile(Counter.twice).startswith("def twice(x):")  # (looked up on the class: a plain function)


def test_an_object_with_call_is_its_call_method() -> None:
    source = decompile(Counter())
    assert source.startswith("# Counter.__call__: what calling a Counter object runs\ndef __call__(self, y):")
    assert _defined(source)(Counter(), 10) == 7


@pytest.mark.parametrize(
    ("target", "said"),
    [
        (len, "not builtin_function_or_method len: it is written in C and has no Python bytecode"),
        ([].append, "not builtin_function_or_method list.append: it is written in C and has no Python bytecode"),
        (str.join, "not method_descriptor str.join: it is written in C and has no Python bytecode"),
        (Counter, "not a class (Counter): pass one of its methods, as Counter.method, or an instance"),
        (3, "not int"),
    ],
)
def test_what_has_no_bytecode_is_refused_naming_its_type(target: object, said: str) -> None:
    with pytest.raises(TypeError, match="takes a function, method, module or code object") as error:
        decompile(target)
    assert said in str(error.value)


def test_a_callable_object_of_a_class_named_with_a_vowel_takes_an() -> None:
    class Adder:
        def __call__(self, y):
            return y + 1

        def add(self, y):
            return y + 2

    assert decompile(Adder()).startswith("# Adder.__call__: what calling an Adder object runs\n")
    assert "a method bound to an Adder object (self)" in decompile(Adder().add)
