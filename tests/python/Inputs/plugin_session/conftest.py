# The kernels of tests/python/Inputs, importable by the session's tests.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
