"""The figures the robustness checks publish.

Each check calls record(); the figure is printed at once (visible with -s or
-rP) and collected for the "Robustness figures" table that conftest.py prints
in the terminal summary and writes to tests/artifacts/robustness.txt.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ARTIFACT = Path(__file__).resolve().parent.parent / "artifacts" / "robustness.txt"


@dataclass
class Figure:
    check: str
    name: str
    value: object
    target: str


RECORDED: list[Figure] = []


def record(check: str, name: str, value: object, target: str = "") -> object:
    RECORDED.append(Figure(check, name, value, target))
    print(f"[robustness] {check}: {name} = {value}" + (f" (target {target})" if target else ""))
    return value


def table() -> list[str]:
    if not RECORDED:
        return []
    width_check = max(len(f.check) for f in RECORDED)
    width_name = max(len(f.name) for f in RECORDED)
    lines = []
    for f in RECORDED:
        value = f"{f.value:.2f}" if isinstance(f.value, float) else str(f.value)
        target = f"  (target {f.target})" if f.target else ""
        lines.append(f"{f.check:<{width_check}}  {f.name:<{width_name}}  {value}{target}")
    return lines


def write_artifact(lines: list[str]) -> Path:
    ARTIFACT.parent.mkdir(parents=True, exist_ok=True)
    ARTIFACT.write_text("Robustness figures\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return ARTIFACT
