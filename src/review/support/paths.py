"""Every folder the console reads or writes, named in one place.

The reviewer's own folders come from platformdirs (XDG on Linux: ``$XDG_CONFIG_HOME/review``,
``$XDG_CACHE_HOME/review``, ``$XDG_DATA_HOME/review``; the platform's own places elsewhere).
``REVIEW_CACHE_DIR`` moves the cache (tests and benchmarks use it). The bundled themes and sample
submissions ship inside the package (``review/data``, copied there when the wheel is built) and are
read with importlib.resources; in a source checkout that was installed editable they are read from
the checkout's top-level ``themes/`` and ``sample_submissions/``.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP = "review"


def config_dir() -> Path:
    """Keymap and the reviewer's own themes (not created here: nothing is written to it)."""
    return Path(platformdirs.user_config_dir(APP, appauthor=False))


def data_dir() -> Path:
    """The demo cohort and written logs."""
    return Path(platformdirs.user_data_dir(APP, appauthor=False))


def cache_dir() -> Path:
    """Sanitised clones, harness results, run folders: private to this user (0700)."""
    override = os.environ.get("REVIEW_CACHE_DIR")
    root = Path(override) if override else Path(platformdirs.user_cache_dir(APP, appauthor=False))
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    return root


def keymap_file() -> Path:
    return config_dir() / "keymap.toml"


def user_themes_dir() -> Path:
    return config_dir() / "themes"


def demo_dir() -> Path:
    return data_dir() / "demo-cohort"


def logs_dir() -> Path:
    return data_dir() / "logs"


def _bundled(name: str) -> Path:
    # Imported here: most commands never read a bundled file, and it costs 7 ms at start-up.
    import importlib.resources

    packaged = importlib.resources.files("review") / "data" / name
    if isinstance(packaged, Path) and packaged.is_dir():
        return packaged
    # An editable install of a checkout: src/review/support/paths.py -> the checkout.
    checkout = Path(__file__).resolve().parents[3] / name
    return checkout


def bundled_themes_dir() -> Path:
    override = os.environ.get("REVIEW_THEMES_DIR")
    return Path(override) if override else _bundled("themes")


def samples_dir() -> Path:
    override = os.environ.get("REVIEW_SAMPLES")
    return Path(override) if override else _bundled("sample_submissions")
