"""How the gateway's record of a request reads in the stub log: one sanitised line, the key shown
whole (the pane scrolls sideways) unless a hostile one is cut, and says so."""

from __future__ import annotations

from review.core.text import safe_line

KEY_SHOWN = 80


def short_key(key: str | None) -> str:
    if key is None:
        return "(no key)"
    # One token, so the colour follows the whole key.
    shown = safe_line(key, KEY_SHOWN + 1).replace(" ", "\u2423")
    return shown if len(key) <= KEY_SHOWN else f"{shown[:KEY_SHOWN]}…(+{len(key) - KEY_SHOWN}chars)"


def describe_request(record: dict) -> str:
    where = f"p{record['process']} call {record['call']}" if record.get("call") else f"p{record['process']}"
    extra = []
    if record.get("charge_created"):
        extra.append(f"charge {record['charge_id']} created")
    if record.get("replayed"):
        extra.append(f"replayed {record.get('charge_id') or ''}".strip())
    if record.get("note"):
        extra.append(record["note"])
    text = (
        f"#{record['seq']} {where} {record['method']} {record['path']} key={short_key(record['key'])}"
        f" ({record['key_source']}) amount={record['amount']!r} → {record['status']}"
    )
    return safe_line(text + (f" · {', '.join(extra)}" if extra else ""), 400)
