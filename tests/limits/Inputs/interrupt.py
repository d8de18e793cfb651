#!/usr/bin/env python3
"""Sends a signal to a run of fenceline once it has begun checking, and
reports what came out (issue 35: results survive a stop).

Usage: interrupt.py [--signal TERM] [--after-stdout TEXT] [--seconds S] [--json] COMMAND...
Starts COMMAND, waits until its stdout contains TEXT and then S seconds
more (without TEXT: S seconds from the start, default 1), sends the signal, and waits for it to end (at
most 60 s; then it is killed and that is reported). Prints its stdout, its
stderr, "exit status: N" and "seconds after the signal: T". With --json,
also "json: valid" and the report's "complete" flag and notification kinds,
or "json: invalid".
"""
import argparse
import json
import signal
import subprocess
import sys
import tempfile
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--signal", default="TERM")
    parser.add_argument("--after-stdout", default="")
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    with tempfile.NamedTemporaryFile() as out, tempfile.NamedTemporaryFile() as err:
        child = subprocess.Popen(args.command, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        start = time.monotonic()
        while child.poll() is None and time.monotonic() - start < 60:
            with open(out.name, "rb") as seen:
                if args.after_stdout and args.after_stdout.encode() in seen.read():
                    break
            if not args.after_stdout and time.monotonic() - start >= args.seconds:
                break
            time.sleep(0.01)
        if args.after_stdout:
            time.sleep(args.seconds)
        sent = time.monotonic()
        if child.poll() is None:
            child.send_signal(getattr(signal, "SIG" + args.signal))
        else:
            print("interrupt: the command ended before the signal")
        try:
            status = child.wait(timeout=60)
        except subprocess.TimeoutExpired:
            child.kill()
            status = child.wait()
            print("interrupt: killed: it did not stop within 60 s")
        after = time.monotonic() - sent
        with open(out.name, "rb") as seen:
            stdout = seen.read().decode(errors="replace")
        with open(err.name, "rb") as seen:
            stderr = seen.read().decode(errors="replace")
    sys.stdout.write(stdout)
    sys.stdout.write(stderr)
    print(f"exit status: {status}")
    print(f"seconds after the signal: {after:.1f}")
    if args.json:
        try:
            report = json.loads(stdout)
            print("json: valid")
            print(f"complete: {str(report['stats']['complete']).lower()}")
            print("kinds: " + " ".join(sorted({n['kind'] for n in report['notifications']})))
            print(f"diagnostics: {len(report['diagnostics'])}")
        except (ValueError, KeyError) as error:
            print(f"json: invalid ({error})")


if __name__ == "__main__":
    main()
