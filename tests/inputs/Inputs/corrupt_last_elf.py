"""Copies a CUDA binary (argv[1] -> argv[2]) with the section-header offset of its LAST embedded
device ELF image set out of range, so that cuobjdump stops there with "Invalid ELF" after it has
read (and extracted the PTX of) the images before it: the form of a real library that cuobjdump
reads only partway (tests/inputs/binaries.test)."""
import sys

data = bytearray(open(sys.argv[1], "rb").read())
magic = b"\x7fELF"
starts = []
at = data.find(magic, 1)  # offset 0 is the host library's own header
while at != -1:
    starts.append(at)
    at = data.find(magic, at + 1)
if not starts:
    sys.exit("no embedded ELF image in " + sys.argv[1])
last = starts[-1]
data[last + 0x28:last + 0x30] = (0x7FFFFFFF).to_bytes(8, "little")  # e_shoff of a 64-bit ELF
open(sys.argv[2], "wb").write(data)
