# Runs a command, relays its stdout and stderr (stderr after stdout), then
# prints "exit status: N" and succeeds, so lit tests can FileCheck the exact
# status (lit's `not` only tells zero from non-zero).
import subprocess
import sys

result = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(result.stdout)
sys.stdout.write(result.stderr)
print(f"exit status: {result.returncode}")
