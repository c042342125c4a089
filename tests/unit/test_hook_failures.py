"""A hook of compilescope's that fails inside torch's compile keeps what failed, for which
version, the error and where (record/hook_failures.py): the first five, each once, and the count."""

from __future__ import annotations

from compilescope.record.hook_failures import HookFailures


def _fail(message: str) -> Exception:
    try:
        raise KeyError(message)
    except KeyError as error:
        return error


def test_each_failure_is_kept_once_with_where_it_failed() -> None:
    failures = HookFailures("counting calls")
    assert failures.facts() == {}  # nothing failed: nothing in the record
    for label in ("0/0 (f)", "0/0 (f)", "0/1 (f)"):
        failures.add(_fail("x"), label)
    facts = failures.facts()
    assert facts["failed"] == 3
    first, second, total = facts["failures"]
    assert first.startswith("counting calls for 0/0 (f) failed: KeyError: 'x' (test_hook_failures.py:")
    assert first.endswith(" in _fail)") and second.startswith("counting calls for 0/1 (f) failed")
    assert total == "counting calls failed 3 times in all"


def test_at_most_five_are_kept() -> None:
    failures = HookFailures("reading Dynamo's code back")
    for n in range(40):
        failures.add(_fail(str(n)), f"{n}/0 (f)")
    facts = failures.facts()
    assert facts["failed"] == 40 and len(facts["failures"]) == 6
    assert facts["failures"][-1] == "reading Dynamo's code back failed 40 times in all"
