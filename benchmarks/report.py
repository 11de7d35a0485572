"""The table printed at the end of a run (also pasted into docs/benchmarks.md)."""

from __future__ import annotations

from typing import Any


def figure(value: float | None) -> str:
    if value is None:
        return "-"
    if value == 0 or abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 1:
        return f"{value:,.2f}"
    return f"{value:.3g}"


def verdict(met: bool | None) -> str:
    return {True: "met", False: "MISSED", None: ""}[met]


def format_table(document: dict[str, Any]) -> str:
    arguments = document["arguments"]
    machine = document["machine"]
    lines = [
        f"{arguments['pages']} pages x {arguments['locales']} target locales, "
        f"translation sample {arguments['sample']} pages; Python {machine['python']}, "
        f"{machine['cpus']} CPUs; {document['seconds']} s in all.",
        "",
        "| benchmark | metric | ours | baseline | ratio | target | met | notes |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in document["results"]:
        lines.append(
            f"| {row['name']} | {row['metric']} | {figure(row['ours'])} "
            f"| {figure(row['baseline'])} | {figure(row['ratio'])} | {row['target']} "
            f"| {verdict(row['met'])} | {row['notes']} |"
        )
    return "\n".join(lines)
