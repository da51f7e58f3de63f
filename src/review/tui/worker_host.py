"""What a helper that starts workers needs of the widget or screen it works for: Textual's
`run_worker`, typed once for every such helper's Protocol."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from textual.worker import Worker


class WorkerHost(Protocol):
    def run_worker(
        self,
        work: Callable[[], None],
        name: str | None = ...,
        group: str = ...,
        description: str = ...,
        exit_on_error: bool = ...,
        start: bool = ...,
        exclusive: bool = ...,
        thread: bool = ...,
    ) -> Worker[None]: ...
