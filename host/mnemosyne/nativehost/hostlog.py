"""The host log (logs/host.log): action, id, sizes and timings, never bodies.

Until the first reply is written, `log` appends its lines itself (logfmt.plain_line: the format logging
writes), so a cold `hello` does not wait for the logging package and what it imports (traceback, threading,
string, weakref: about a sixth of hello's start-up). `setup()`, called after the first reply, hands over to
logging with a rotating file handler; from then on `log` forwards to the "mnemosyne.host" logger.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .. import paths
from ..logfmt import escaping_formatter, plain_line

# Imports inside functions: logging, which the first reply does not wait for (see the module docstring).

TYPE_CHECKING = False  # typing is not imported on the host's hello path; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

LOGGER = "mnemosyne.host"


def _log_path() -> Path:
    return paths.ensure_dir(paths.log_dir()) / "host.log"


class HostLog:
    def __init__(self) -> None:
        self._logger: Any = None  # logging.Logger once setup() ran
        # before start() (a host run in-process), like logging with no handler: warnings to stderr only
        self._started = False
        self._path: Any = None  # host.log, or None: stderr

    def start(self) -> None:
        """Lines go to host.log from now on (stderr if it cannot be opened), written here until setup()."""
        self._started = True
        try:
            self._path = _log_path()
        except OSError:
            self._path = None

    def info(self, msg: str, *args: Any) -> None:
        self._record("INFO", msg, args)

    def warning(self, msg: str, *args: Any) -> None:
        self._record("WARNING", msg, args)

    def exception(self, msg: str, *args: Any) -> None:
        """With the traceback, which needs logging's formatter: a start-up error sets logging up first."""
        if self._logger is None and not self._started:  # in-process: logging's own no-handler fallback
            import logging  # (see the imports)

            logging.getLogger(LOGGER).exception(msg, *args)
            return
        if self._logger is None:
            self.setup(rotating=False)
        self._logger.exception(msg, *args)

    def _record(self, level: str, msg: str, args: tuple[Any, ...]) -> None:
        if self._logger is not None:
            self._logger.log({"INFO": 20, "WARNING": 30}[level], msg, *args)
            return
        if not self._started and level == "INFO":
            return
        line = plain_line(level, msg % args if args else msg) + "\n"
        try:
            if self._path is None:
                raise OSError
            with open(self._path, "a", encoding="utf-8") as out:
                out.write(line)
        except OSError:
            sys.stderr.write(line)

    def setup(self, rotating: bool = True) -> None:
        """Logging takes over the file: RotatingFileHandler (1 MB, 2 backups), or a plain FileHandler."""
        import logging  # (see the imports)

        try:
            if rotating:
                from logging.handlers import RotatingFileHandler  # (see the imports)

                handler: logging.Handler = RotatingFileHandler(_log_path(), maxBytes=1_000_000, backupCount=2)
            else:
                handler = logging.FileHandler(_log_path())
        except OSError:
            handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(escaping_formatter())
        logger = logging.getLogger(LOGGER)
        for old in list(logger.handlers):
            logger.removeHandler(old)
            old.close()
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        self._logger = logger


log = HostLog()
