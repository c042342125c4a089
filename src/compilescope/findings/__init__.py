"""Findings: what matters in a Session, most important first, each with what to change.

- rules.py: the findings of a Session (findings(session)), each naming where it came from;
- before_compile.py: what to say of a program that ended before torch.compile compiled anything,
  from plain facts (no Session, no dataclasses): `compilescope run` says it without building a
  session when the program never imported torch.

This package's own import is empty on purpose, so that before_compile stays light.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

# finding.Level's words (Final: a type checker reads each as its literal)
PROBLEM: Final = "problem"
WARNING: Final = "warning"
INFO: Final = "info"
