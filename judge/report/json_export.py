"""The ``--json`` document (schema in docs/json-schema.md)."""

from __future__ import annotations

import json
import math

from judge.base.text import Budget

SCHEMA_VERSION = 1


def _clean(value, budget: Budget | None = None):
    """JSON has no NaN/inf: write them as null so every parser accepts the file; and every string safe and
    bounded, the document's within one budget (judge/base/text.py: a red team's solution made 170 MB ones)."""
    budget = budget if budget is not None else Budget()
    if isinstance(value, str):
        return budget.take(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _clean(v, budget) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v, budget) for v in value]
    return value


def run_to_json(result_dict: dict) -> str:
    """One run as a JSON document (a string; the caller decides where it goes)."""
    return json.dumps(_clean({"schema": SCHEMA_VERSION, **result_dict}), indent=2, sort_keys=False)
