"""Enables the compile-time hooks when their compiler is imported.

``install()`` enables at once the hook of every compiler already imported and
waits for the others with a post-import hook (a finder first on
``sys.meta_path`` that, when ``triton``, ``cutlass.cute`` or ``tilelang`` is
imported, runs the module as usual and then enables its hook). So importing
fenceline never imports a compiler, and a program that never imports one pays
nothing.

The ``fenceline-autoload.pth`` file that ``pip install`` puts in
site-packages calls :func:`from_environment` at interpreter start when
``FENCELINE`` is ``1``, ``true``, ``on``, ``yes``, ``warn`` or ``error``: the
environment switch that needs no change to the program.
"""

from __future__ import annotations

import importlib
import sys
import threading

# language -> the module whose import enables it
MODULES = {"triton": "triton", "cute": "cutlass.cute", "tilelang": "tilelang"}
SWITCH_VALUES = ("1", "true", "on", "yes", "warn", "error")

_lock = threading.RLock()
_waiting = {}  # module name -> language


def install(languages=tuple(MODULES), **settings):
    from fenceline import jit
    jit.configure(**settings)
    for language in languages:
        if language not in MODULES:
            raise ValueError(f"fenceline: no hook for {language!r}; the hooks are {', '.join(MODULES)}")
        module = MODULES[language]
        if module in sys.modules:
            _enable(language)
        else:
            with _lock:
                _waiting[module] = language
    with _lock:
        if _waiting and _FINDER not in sys.meta_path:
            sys.meta_path.insert(0, _FINDER)


def from_environment():
    """Called by fenceline-autoload.pth: enables every hook when ``$FENCELINE`` says so."""
    import os
    if os.environ.get("FENCELINE", "").strip().lower() not in SWITCH_VALUES:
        return
    from fenceline import jit
    install(**jit.settings_from_environment())


def _enable(language):
    try:
        hook = importlib.import_module(f"fenceline.{language}")
        hook.enable()
    except Exception as failed:  # a compiler this version does not know how to hook
        from fenceline import jit
        jit.note_once(f"enable-{language}", f"fenceline: could not enable the {language} hook: "
                                            f"{type(failed).__name__}: {failed}")


class _PostImportFinder:
    """Finds nothing itself: for a module that a hook waits for, it asks the other finders
    for the module's spec and makes its loader enable the hook once the module has run."""

    def find_spec(self, name, path=None, target=None):
        with _lock:
            language = _waiting.get(name)
        if language is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        # Only a loader object of this module's own (a package's SourceFileLoader), never a
        # class that loads every module of its kind (builtins, frozen modules).
        if loader is None or isinstance(loader, type) or not hasattr(loader, "exec_module"):
            return spec
        run = loader.exec_module

        def exec_module(module):
            try:
                run(module)
            finally:
                try:
                    del loader.exec_module  # the loader object is this module's own
                except AttributeError:
                    pass
            with _lock:
                if _waiting.get(name) != language:
                    return
                del _waiting[name]
                if not _waiting and self in sys.meta_path:
                    sys.meta_path.remove(self)
            _enable(language)

        try:
            loader.exec_module = exec_module
        except AttributeError:  # a loader with slots: enable after the import instead
            pass
        return spec


_FINDER = _PostImportFinder()
