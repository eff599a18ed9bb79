"""The ``--json`` document (schema in docs/json-schema.md)."""

from __future__ import annotations

import json
import math

SCHEMA_VERSION = 1


def _clean(value):
    """JSON has no NaN/inf: write them as null so every parser accepts the file."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def run_to_json(result_dict: dict) -> str:
    """One run as a JSON document (a string; the caller decides where it goes)."""
    return json.dumps(_clean({"schema": SCHEMA_VERSION, **result_dict}), indent=2, sort_keys=False)
