"""The machinery shared by the compile-time hooks (``fenceline.triton``,
``fenceline.cute``, ``fenceline.tilelang``) and the pytest plugin.

A hook hands every kernel its compiler produces to :func:`submit` (the PTX, or
for TileLang the generated CUDA source, plus what is known of the kernel: its
Python function and source line). fenceline's checker runs on it with
``--format json`` and the configuration found upward from the kernel's source
file (``.fenceline.toml``, as the command line finds it upward from an input);
each finding is then reported once per kernel specialization, at the kernel's
Python line, as a :class:`fenceline.OrderingWarning` (``action="warn"``, the
default) or raised as :class:`fenceline.OrderingError` (``action="error"``).

Checks run on a worker thread. A hook waits for the checks it started at the
end of the compile call that started them (:func:`report_pending`), so the
report comes from the thread that compiled, inside the compile call;
:func:`wait` reports whatever is still pending (the pytest plugin calls it after
each test, and it runs at interpreter exit).

Settings (:func:`configure`, or the keyword arguments of each ``enable()``):

``action``    ``"warn"`` (default) or ``"error"``.
``strict``    also report the strict tier (``fenceline check --strict``), when
              the checker has that flag; a message says so once when it has not.
``config``    a ``.fenceline.toml`` for every kernel (default: found upward from
              each kernel's source file; none found: ``--no-config``).
``baseline``  report only findings not in this baseline (``--baseline FILE``: a
              JSON report or SARIF log of fenceline, see docs/cli.md).
``args``      more ``fenceline check`` arguments (e.g. ``["--checks=-*,proxy-*"]``).
``binary``    the checker (default: ``$FENCELINE_BIN``, the package's bundled
              binary, then ``fenceline`` on ``PATH``).
"""

from __future__ import annotations

import atexit
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import warnings

import fenceline

__all__ = ["configure", "settings", "submit", "wait", "reports", "add_listener", "remove_listener",
           "Kernel", "Report", "Finding", "find_config", "binary", "cache_dir"]

_lock = threading.RLock()


class Settings:
    """What :func:`configure` sets; one set of settings for every language."""

    def __init__(self):
        self.action = "warn"
        self.strict = False
        self.config = None
        self.baseline = None
        self.args = ()
        self.binary = None

    def key(self):
        return (self.action, self.strict, self.config, self.baseline, tuple(self.args), self.binary)


_settings = Settings()


def settings():
    return _settings


def configure(action=None, strict=None, config=None, baseline=None, args=None, binary=None):
    """Changes the settings of every hook; ``None`` leaves a setting as it is."""
    with _lock:
        if action is not None:
            if action not in ("warn", "error"):
                raise ValueError(f"fenceline: action must be 'warn' or 'error', not {action!r}")
            _settings.action = action
        if strict is not None:
            _settings.strict = bool(strict)
        if config is not None:
            _settings.config = os.fspath(config) or None
        if baseline is not None:
            _settings.baseline = os.fspath(baseline) or None
        if args is not None:
            _settings.args = tuple(args)
        if binary is not None:
            _settings.binary = os.fspath(binary) or None


def settings_from_environment():
    """The keyword arguments of :func:`configure` that the environment asks for:
    ``FENCELINE=error`` (raise instead of warn), ``FENCELINE_STRICT=1``,
    ``FENCELINE_CONFIG``, ``FENCELINE_BASELINE``."""
    options = {}
    if os.environ.get("FENCELINE", "").strip().lower() == "error":
        options["action"] = "error"
    if os.environ.get("FENCELINE_STRICT", "").strip().lower() in ("1", "true", "on", "yes"):
        options["strict"] = True
    for name, key in (("FENCELINE_CONFIG", "config"), ("FENCELINE_BASELINE", "baseline")):
        if os.environ.get(name):
            options[key] = os.environ[name]
    return options


# -- The checker ------------------------------------------------------------------------------------

def binary():
    """The checker to run: the ``binary`` setting, ``$FENCELINE_BIN``, ``$FENCELINE`` when it
    names a file (the older spelling), the binary bundled in this package, ``fenceline`` on
    ``PATH``. ``FileNotFoundError`` when there is none."""
    candidates = [_settings.binary, os.environ.get("FENCELINE_BIN")]
    legacy = os.environ.get("FENCELINE", "")
    if os.sep in legacy:
        candidates.append(legacy)
    for candidate in candidates:
        if candidate:
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return candidate
            raise FileNotFoundError(f"fenceline: the checker {candidate} does not exist or is not executable")
    try:
        return str(fenceline.binary_path())
    except FileNotFoundError as bundled:
        found = shutil.which("fenceline")
        if found:
            return found
        raise bundled


_help_cache = {}


def _supports(binary_path, flag):
    """Whether ``fenceline check --help`` of this binary lists the option (e.g. ``--strict``)."""
    with _lock:
        text = _help_cache.get(binary_path)
        if text is None:
            try:
                text = subprocess.run([binary_path, "check", "--help"], capture_output=True, text=True,
                                      timeout=60).stdout
            except (OSError, subprocess.SubprocessError):
                text = ""
            _help_cache[binary_path] = text
    return re.search(r"(^|[\s,])" + re.escape(flag) + r"\b", text) is not None


def find_config(source_file):
    """The ``.fenceline.toml`` found upward from the folder of ``source_file``, or None."""
    if not source_file:
        return None
    folder = os.path.dirname(os.path.abspath(source_file))
    while True:
        candidate = os.path.join(folder, ".fenceline.toml")
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def cache_dir():
    """Where the hooks keep the files they check (generated CUDA, PTX) and TileLang's
    results: ``$FENCELINE_CACHE_DIR``, else ``$XDG_CACHE_HOME/fenceline``, else
    ``~/.cache/fenceline``."""
    explicit = os.environ.get("FENCELINE_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "fenceline")


def write_once(path, text):
    """Writes ``text`` to ``path`` unless it holds it already (a temporary file
    renamed over it, so that a concurrent reader never sees half a file)."""
    try:
        with open(path) as existing:
            if existing.read() == text:
                return path
    except OSError:
        pass
    os.makedirs(os.path.dirname(path), exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    with os.fdopen(handle, "w") as out:
        out.write(text)
    os.replace(temporary, path)
    return path


def digest(*parts):
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode() if isinstance(part, str) else part)
        h.update(b"\0")
    return h.hexdigest()


# -- Kernels, findings, reports ---------------------------------------------------------------------

class Kernel:
    """One kernel specialization a compiler produced.

    ``language``: "Triton", "CuTe DSL" or "TileLang"; ``name``: its Python name;
    ``specialization``: what distinguishes this compile of it (constants, target);
    ``source_file``/``source_line``: the Python function's definition; ``key``: the
    identity that makes it be checked and reported once."""

    def __init__(self, language, name, key, source_file=None, source_line=None, specialization=""):
        self.language = language
        self.name = name
        self.key = key
        self.source_file = os.path.abspath(source_file) if source_file else None
        self.source_line = source_line
        self.specialization = specialization

    def describe(self):
        text = f"{self.language} kernel '{self.name}'"
        return f"{text} [{self.specialization}]" if self.specialization else text

    def __repr__(self):
        return f"<fenceline.jit.Kernel {self.describe()} at {self.source_file}:{self.source_line}>"


class Finding(dict):
    """One diagnostic of ``fenceline check --format json`` (docs/cli.md, "JSON"), kept
    whole (keys this version does not know included); :meth:`where` is where it is reported
    in Python."""

    kernel = None

    @property
    def check(self):
        return self.get("check", "")

    @property
    def severity(self):
        return self.get("severity", "warning")

    @property
    def message(self):
        return self.get("message", "")

    def where(self):
        """(file, line) of the Python line the finding is reported at: the first frame of
        its location and inline chain in the kernel's source file, else the first in a
        Python file outside the installed packages, else the kernel's definition."""
        kernel = self.kernel
        frames = [self.get("location")] + list(self.get("inlined_at") or [])
        frames = [f for f in frames if isinstance(f, dict) and f.get("file") and isinstance(f.get("line"), int)]
        if kernel is not None and kernel.source_file:
            for frame in frames:
                if _same_file(frame["file"], kernel.source_file):
                    return kernel.source_file, frame["line"]
        for frame in frames:
            path = frame["file"]
            if path.endswith(".py") and os.path.isfile(path) and not _is_library(path):
                return os.path.abspath(path), frame["line"]
        if kernel is not None and kernel.source_file:
            return kernel.source_file, kernel.source_line or 1
        if frames:
            return frames[0]["file"], frames[0]["line"]
        return "<unknown>", 0

    def render(self):
        """The finding as the warning's text: check id and message, the kernel, the
        generated code's line when it is not Python, notes, evidence and the fix."""
        lines = [f"{self.check}: {self.message}"]
        if self.kernel is not None:
            lines.append(f"  in {self.kernel.describe()}")
        location = self.get("location")
        if isinstance(location, dict) and location.get("file") and not str(location["file"]).endswith(".py"):
            lines.append(f"  at {_position(location)} (generated code)")
        for note in self.get("notes") or []:
            if isinstance(note, dict):
                where = _position(note.get("location"))
                lines.append(f"  {where + ': ' if where else ''}note: {note.get('message', '')}")
        for item in self.get("evidence") or []:
            if isinstance(item, dict):
                where = _position(item.get("location"))
                text = item.get("message") or item.get("what") or item.get("kind") or ""
                lines.append(f"  {where + ': ' if where else ''}evidence: {text}")
            elif isinstance(item, str):
                lines.append(f"  evidence: {item}")
        if self.get("fix"):
            lines.append(f"  fix: {self['fix']}")
        return "\n".join(lines)

    def __str__(self):
        path, line = self.where()
        return f"{path}:{line}: {self.severity}: {self.render()}"


def _position(location):
    if not isinstance(location, dict) or not location.get("file"):
        return ""
    text = _short(location["file"])
    if location.get("line"):
        text += f":{location['line']}"
        if location.get("column"):
            text += f":{location['column']}"
    return text


def _short(path):
    try:
        relative = os.path.relpath(path)
        return relative if not relative.startswith("..") else path
    except ValueError:
        return path


def _same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def _is_library(path):
    parts = os.path.abspath(path).split(os.sep)
    return "site-packages" in parts or "dist-packages" in parts


class Report:
    """What checking one kernel gave: ``findings`` (new ones, after the baseline),
    ``known`` (findings the baseline hid), ``error`` (the checker's message when it could
    not check the kernel), ``seconds`` (the checker's wall time)."""

    def __init__(self, kernel, findings=(), known=0, error=None, seconds=0.0, command=()):
        self.kernel = kernel
        self.findings = list(findings)
        self.known = known
        self.error = error
        self.seconds = seconds
        self.command = list(command)
        self.context = None  # the pytest plugin puts the test's node id here

    def __repr__(self):
        state = f"error: {self.error}" if self.error else f"{len(self.findings)} finding(s)"
        return f"<fenceline.jit.Report {self.kernel.describe()}: {state}>"


def _run(kernel, inputs, extra_args, config_source, cacheable=False):
    """Runs the checker on ``inputs``; returns a :class:`Report` (never raises). With
    ``cacheable`` (True, or a string that is part of the key: the version of the headers
    a generated source includes), the checker's answer is kept in :func:`cache_dir` under a key of
    everything it depends on (the checker binary, the inputs' and the configuration's
    and baseline's contents, the arguments, the working directory), and reused."""
    start = time.perf_counter()
    try:
        checker = binary()
    except FileNotFoundError as missing:
        return Report(kernel, error=str(missing))
    command = [checker, "check", "--format", "json", "--color", "never"]
    config = _settings.config or find_config(config_source or kernel.source_file) \
        or find_config(os.path.join(os.getcwd(), "x"))
    command += ["--config", config] if config else ["--no-config"]
    if _settings.strict:
        if _supports(checker, "--strict"):
            command.append("--strict")
        else:
            _note_once("strict", f"fenceline: this checker ({checker}) has no --strict option; "
                                 "the strict tier is not reported")
    if _settings.baseline:
        command += ["--baseline", _settings.baseline]
    command += list(extra_args) + list(_settings.args) + [os.fspath(p) for p in inputs]
    stored = _result_path(command, [config, _settings.baseline, *inputs], cacheable) if cacheable else None
    run = _load_result(stored)
    if run is None:
        try:
            run = subprocess.run(command, capture_output=True, text=True)
        except OSError as failed:
            return Report(kernel, error=f"fenceline: cannot run {checker}: {failed}", command=command)
        if stored and run.returncode in (0, 1):
            write_once(stored, json.dumps({"returncode": run.returncode, "stdout": run.stdout,
                                           "stderr": run.stderr}))
    seconds = time.perf_counter() - start
    if run.returncode not in (0, 1):
        message = run.stderr.strip() or f"fenceline exited with status {run.returncode}"
        return Report(kernel, error=message, seconds=seconds, command=command)
    try:
        document = json.loads(run.stdout)
        diagnostics = document.get("diagnostics", []) if isinstance(document, dict) else None
        if not isinstance(diagnostics, list):
            raise ValueError("no 'diagnostics' list")
    except ValueError as bad:
        return Report(kernel, error=f"fenceline: unreadable JSON report ({bad}): {run.stdout[:200]!r}",
                      seconds=seconds, command=command)
    findings = []
    for diagnostic in diagnostics:
        if isinstance(diagnostic, dict):
            finding = Finding(diagnostic)
            finding.kernel = kernel
            findings.append(finding)
    known = 0
    hidden = re.search(r"baseline: (\d+) known finding", run.stderr)
    if hidden:
        known = int(hidden.group(1))
    return Report(kernel, findings, known=known, seconds=seconds, command=command)


def _result_path(command, files, salt):
    try:
        stat = os.stat(command[0])
        parts = [str(salt), f"{command[0]}:{stat.st_size}:{stat.st_mtime_ns}", os.getcwd(), *command[1:]]
        for path in files:
            if path:
                with open(path, "rb") as f:
                    parts.append(f.read())
    except OSError:
        return None
    return os.path.join(cache_dir(), "results", digest(*parts)[:32] + ".json")


class _Stored:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def _load_result(path):
    if not path:
        return None
    try:
        with open(path) as f:
            data = json.load(f)
        return _Stored(int(data["returncode"]), str(data["stdout"]), str(data["stderr"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


# -- Jobs and reporting -----------------------------------------------------------------------------

_executor = None
_pending = []          # [(future, thread id of the submitter)], in submission order
_done = {}             # kernel key -> Report, for every kernel checked in this process
_warned = set()        # keys of the kernels whose findings were warned about
_reports = []          # every Report delivered, in order
_running = set()       # keys of the kernels submitted and not yet delivered
_listeners = []


def _pool():
    global _executor
    with _lock:
        if _executor is None:
            _executor = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1)),
                                                              thread_name_prefix="fenceline")
        return _executor


def seen(key):
    """The report of the kernel with this key when it was checked already in this process."""
    with _lock:
        return _done.get(key)


def submit(kernel, inputs, extra_args=(), config_source=None, background=True, cacheable=False):
    """Checks ``inputs`` (paths the checker reads) as ``kernel``. Returns a future of the
    :class:`Report`, or None when the kernel was checked already (in warn mode). The
    report is delivered by :func:`report_pending` (the hook, at the end of the compile
    call) or :func:`wait`."""
    with _lock:
        done = _done.get(kernel.key)
        if done is not None:
            again = done.findings and (_settings.action == "error" or kernel.key not in _warned)
            if not again:
                return None
            future = concurrent.futures.Future()
            future.set_result(done)
            _pending.append((future, threading.get_ident()))
            return future
        if kernel.key in _running:
            return None  # submitted already (a kernel lowered twice before the report): reported once
        _running.add(kernel.key)
        if background:
            future = _pool().submit(_run, kernel, inputs, extra_args, config_source, cacheable)
        else:
            future = concurrent.futures.Future()
            future.set_result(_run(kernel, inputs, extra_args, config_source, cacheable))
        _pending.append((future, threading.get_ident()))
        return future


def report_pending(this_thread_only=True):
    """Waits for the checks this thread started (all threads': ``this_thread_only=False``)
    and reports their findings. Raises :class:`fenceline.OrderingError` in error mode, or
    whatever the warnings filters turn an :class:`fenceline.OrderingWarning` into."""
    me = threading.get_ident()
    with _lock:
        mine = [entry for entry in _pending if not this_thread_only or entry[1] == me]
        for entry in mine:
            _pending.remove(entry)
    failure = None
    for future, _ in mine:
        report = future.result()
        try:
            _deliver(report)
        except BaseException as raised:  # report the rest first; raise the first one
            if failure is None:
                failure = raised
    if failure is not None:
        raise failure


def wait():
    """Waits for every pending check and reports it (see :func:`report_pending`)."""
    report_pending(this_thread_only=False)


def _deliver(report):
    kernel = report.kernel
    with _lock:
        _running.discard(kernel.key)
        first = kernel.key not in _done
        if first:
            _done[kernel.key] = report
            _reports.append(report)
    if first:
        for listener in list(_listeners):
            listener(report)
    if report.error:
        if first:
            warnings.warn_explicit(f"fenceline could not check {kernel.describe()}: {report.error}",
                                   fenceline.FencelineWarning, kernel.source_file or "<unknown>",
                                   kernel.source_line or 0)
        return
    if not report.findings:
        return
    if _settings.action == "error":
        raise fenceline.OrderingError(report)
    with _lock:
        if kernel.key in _warned:
            return
    # A warning the filters turn into an exception leaves the kernel unwarned: the next
    # compile of it raises again, as a compile error would.
    for finding in report.findings:
        path, line = finding.where()
        warnings.warn_explicit(fenceline.OrderingWarning(finding.render(), finding), fenceline.OrderingWarning,
                               path, line, module=_module_name(path))
    with _lock:
        _warned.add(kernel.key)


def _module_name(path):
    name = os.path.basename(path)
    return name[:-3] if name.endswith(".py") else name


def reports():
    """Every :class:`Report` delivered in this process, in order."""
    with _lock:
        return list(_reports)


def add_listener(callback):
    """``callback(report)`` for each kernel's first report (the pytest plugin's summary)."""
    with _lock:
        if callback not in _listeners:
            _listeners.append(callback)


def remove_listener(callback):
    with _lock:
        if callback in _listeners:
            _listeners.remove(callback)


def forget():
    """Forgets which kernels were checked (tests of the hooks)."""
    with _lock:
        _done.clear()
        _warned.clear()
        _running.clear()
        _reports.clear()


_noted = set()


def _note_once(key, message, stacklevel=3):
    with _lock:
        if key in _noted:
            return
        _noted.add(key)
    warnings.warn(message, fenceline.FencelineWarning, stacklevel=stacklevel)


def note_once(key, message, stacklevel=2):
    """A :class:`fenceline.FencelineWarning` (an unsupported compiler version, a hook that
    cannot be installed), once per process; ``stacklevel`` as for :func:`warnings.warn`,
    counted from the caller of this function."""
    _note_once(key, message, stacklevel + 2)


@atexit.register
def _at_exit():
    try:
        wait()
    except Exception as raised:  # nothing left to raise into
        print(f"{raised}", file=sys.stderr)
