"""Guard benchmark: how many secrets the write path's guard misses, and how many
ordinary notes it refuses.

    python3 benchmarks/guard.py                                # the in-repo corpora
    python3 benchmarks/guard.py --secrets held.jsonl --clean notes.txt
    python3 benchmarks/guard.py --json-out benchmarks/out/guard.json --list-misses

Every case runs through `tree_ring.guard.check_fields`, the function
`write.pipeline.prepare` calls over all of a memory's text fields, with the
fields a write would give it (`Memory.text_fields`): a case is caught when it
raises `SecretRefused`. Targets: at most 5% of secrets missed, at most 1% of
ordinary notes refused.

Corpus files, any mix of these line formats:

- ``class<TAB>text`` (tests/fixtures/guard/secrets.txt): one secret in the
  summary. In a `--clean` file, a line without a tab is one ordinary note
  (tests/fixtures/guard/clean.txt).
- JSON lines ``{"text": ..., "details": ..., "source_quote": ..., "source_ref":
  ..., "tags": [...], "class": ..., "secret": true/false}``: "text" is the
  summary; a line with "secret" counts as that, whichever file it is in, so
  one file may hold both kinds (tests/fixtures/guard/obfuscated.jsonl).

With no file given, the in-repo corpora are read: secrets.txt and the
secrets of obfuscated.jsonl against clean.txt and its ordinary lines. Prints
one JSON document, then a table per class and the totals beside the targets.
Exit status 0 when both targets are met, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tree_ring.guard import check_fields  # noqa: E402
from tree_ring.model.errors import SecretRefused  # noqa: E402
from tree_ring.model.record import Memory, new_memory_id  # noqa: E402

NOW = "2026-12-01T09:00:00Z"

CORPUS = REPO / "tests" / "fixtures" / "guard"
DEFAULT_SECRETS = (CORPUS / "secrets.txt", CORPUS / "obfuscated.jsonl")
DEFAULT_CLEAN = (CORPUS / "clean.txt", CORPUS / "obfuscated.jsonl")
TARGETS = {"missed": 0.05, "false_positives": 0.01}


@dataclass(frozen=True)
class Case:
    origin: str  # file name:line
    key: str  # resolved path:line, the same for a file given twice
    kind: str  # its class, or "note"
    secret: bool
    fields: dict[str, str]


def _fields(row: dict[str, Any]) -> dict[str, str]:
    """The text fields a write of this row gives the guard, as the write path builds them."""
    tags = row.get("tags") or []
    memory = Memory(
        id=new_memory_id(),
        created_at=NOW,
        updated_at=NOW,
        valid_from=NOW,
        event_type="note",
        summary=str(row.get("text", "")),
        details=str(row.get("details", "")),
        source_ref=str(row.get("source_ref", "")),
        source_quote=str(row.get("source_quote", "")),
        tags=tuple(str(tag) for tag in tags) if isinstance(tags, list) else (str(tags),),
    )
    return memory.text_fields()


def read_cases(path: Path, *, secret: bool) -> list[Case]:
    """The cases of one file; `secret` is what a line that does not say counts as."""
    cases: list[Case] = []
    for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        origin = f"{path.name}:{number}"
        key = f"{path.resolve()}:{number}"
        if line.lstrip().startswith("{"):
            row = json.loads(line)
            is_secret = bool(row.get("secret", secret))
            kind = str(row.get("class") or ("secret" if is_secret else "note"))
            cases.append(Case(origin, key, kind, is_secret, _fields(row)))
            continue
        kind, tab, text = line.partition("\t")
        if not tab:
            kind, text = ("secret" if secret else "note"), line
        cases.append(Case(origin, key, kind, secret, _fields({"text": text})))
    return cases


def caught(case: Case) -> str | None:
    """The rule that refused the case's fields, or None when they were stored."""
    try:
        check_fields(case.fields)
    except SecretRefused as refused:
        return refused.rule
    return None


def _unique(cases: list[Case]) -> list[Case]:
    """Each line once: a file given as both secrets and notes is read twice."""
    seen: set[str] = set()
    kept: list[Case] = []
    for case in cases:
        if case.key not in seen:
            seen.add(case.key)
            kept.append(case)
    return kept


def run(secret_files: list[Path], clean_files: list[Path]) -> dict[str, Any]:
    cases = [case for path in secret_files for case in read_cases(path, secret=True)]
    cases += [case for path in clean_files for case in read_cases(path, secret=False)]
    cases = _unique(cases)
    by_class: dict[str, dict[str, int]] = {}
    misses: list[dict[str, str]] = []
    alarms: list[dict[str, str]] = []
    started = time.process_time()
    for case in cases:
        rule = caught(case)
        row = by_class.setdefault(case.kind, {"secret": 0, "clean": 0, "caught": 0, "refused": 0})
        if case.secret:
            row["secret"] += 1
            row["caught"] += rule is not None
            if rule is None:
                misses.append({"at": case.origin, "class": case.kind})
        else:
            row["clean"] += 1
            row["refused"] += rule is not None
            if rule is not None:
                alarms.append({"at": case.origin, "class": case.kind, "rule": rule})
    spent = time.process_time() - started
    secrets = sum(1 for case in cases if case.secret)
    clean = len(cases) - secrets
    missed = len(misses) / secrets if secrets else 0.0
    false_positives = len(alarms) / clean if clean else 0.0
    return {
        "secret_files": [str(path) for path in secret_files],
        "clean_files": [str(path) for path in clean_files],
        "secrets": secrets,
        "clean": clean,
        "missed": len(misses),
        "refused_clean": len(alarms),
        "missed_rate": missed,
        "false_positive_rate": false_positives,
        "targets": TARGETS,
        "met": {
            "missed": missed <= TARGETS["missed"],
            "false_positives": false_positives <= TARGETS["false_positives"],
        },
        "cpu_ms_per_case": spent * 1000 / len(cases) if cases else 0.0,
        "by_class": by_class,
        "misses": misses,
        "false_positives": alarms,
    }


def table(report: dict[str, Any], *, list_misses: bool) -> str:
    lines = [f"{'class':26} {'secrets':>7} {'caught':>7} {'clean':>6} {'refused':>7}"]
    for kind, row in sorted(report["by_class"].items()):
        lines.append(
            f"{kind:26} {row['secret']:7d} {row['caught']:7d} {row['clean']:6d} {row['refused']:7d}"
        )
    met = report["met"]
    lines.append("")
    lines.append(f"{'figure':26} {'measured':>16} {'target':>8}  met")
    missed = f"{report['missed']}/{report['secrets']} = {report['missed_rate']:.1%}"
    refused = f"{report['refused_clean']}/{report['clean']} = {report['false_positive_rate']:.1%}"
    lines.append(
        f"{'secrets missed':26} {missed:>16} {'<= 5%':>8}  {'yes' if met['missed'] else 'NO'}"
    )
    lines.append(
        f"{'ordinary notes refused':26} {refused:>16} {'<= 1%':>8}  "
        f"{'yes' if met['false_positives'] else 'NO'}"
    )
    lines.append(f"CPU per case: {report['cpu_ms_per_case']:.3f} ms")
    if list_misses:
        lines.extend(f"missed: {miss['at']} ({miss['class']})" for miss in report["misses"])
        lines.extend(
            f"refused: {alarm['at']} ({alarm['class']}, rule {alarm['rule']})"
            for alarm in report["false_positives"]
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--secrets", action="append", type=Path, help="a file of secrets (repeatable)"
    )
    parser.add_argument(
        "--clean", action="append", type=Path, help="a file of ordinary notes (repeatable)"
    )
    parser.add_argument("--json-out", type=Path, help="also write the JSON document here")
    parser.add_argument(
        "--list-misses", action="store_true", help="name each miss and false positive by line"
    )
    args = parser.parse_args(argv)
    secret_files = args.secrets or list(DEFAULT_SECRETS)
    # Someone's own secrets are held against the in-repo notes, not its secrets.
    clean_files = args.clean or ([CORPUS / "clean.txt"] if args.secrets else list(DEFAULT_CLEAN))
    for path in (*secret_files, *clean_files):
        if not path.is_file():
            print(f"error: no corpus file {path}; give an existing file", file=sys.stderr)
            return 2
    report = run(secret_files, clean_files)
    document = json.dumps(report, indent=1, sort_keys=True)
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(document + "\n", encoding="utf-8")
    print(document)
    print(table(report, list_misses=args.list_misses))
    return 0 if all(report["met"].values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
