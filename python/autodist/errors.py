"""The exceptions of the autodist package."""

from __future__ import annotations

import dataclasses
import re
from typing import List, Optional

_NODE = re.compile(r"node '([^']*)' \(([A-Za-z0-9_]+), opset (\d+)\)")


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    """One message of the compiler. `node`, `op` and `opset` are set when it
    concerns an ONNX node (parsed from the message's "node 'N' (Op, opset K)")."""

    severity: str
    file: str
    message: str
    node: Optional[str] = None
    op: Optional[str] = None
    opset: Optional[int] = None

    @classmethod
    def parse(cls, severity: str, file: str, message: str) -> "Diagnostic":
        m = _NODE.search(message)
        return cls(severity, file, message,
                   node=m.group(1) if m else None,
                   op=m.group(2) if m else None,
                   opset=int(m.group(3)) if m else None)

    def __str__(self) -> str:
        where = f"{self.file}: " if self.file else ""
        return f"{self.severity}: {where}{self.message}"


class CompileError(Exception):
    """A compile failed; `diagnostics` holds the compiler's messages (the
    first error also makes the exception's text)."""

    def __init__(self, diagnostics: List[Diagnostic]):
        self.diagnostics = list(diagnostics)
        errors = [d for d in self.diagnostics if d.severity == "error"]
        first = errors[0] if errors else (
            self.diagnostics[0] if self.diagnostics else None)
        super().__init__(str(first) if first else "compilation failed")

    @property
    def node(self) -> Optional[str]:
        """The ONNX node the first error names, if any."""
        return next((d.node for d in self.diagnostics if d.node), None)

    @property
    def op(self) -> Optional[str]:
        return next((d.op for d in self.diagnostics if d.op), None)


class RunError(Exception):
    """A launched run failed. `rank` is the rank that failed first (when
    mpirun names it), `message` the runtime's error line, `returncode` and
    `stderr` the job's."""

    def __init__(self, message: str, rank: Optional[int], returncode: int,
                 stderr: str):
        self.message = message
        self.rank = rank
        self.returncode = returncode
        self.stderr = stderr
        where = f"rank {rank}: " if rank is not None else ""
        super().__init__(f"{where}{message}")
