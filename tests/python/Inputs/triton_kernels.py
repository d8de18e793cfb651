# Triton kernels for the compile-time hook tests (python/fenceline/triton.py).
# Written for fenceline: each broken kernel has a fixed twin that must stay silent.
import triton
import triton.language as tl


@triton.jit
def poll_volatile(data, flag, out, BLOCK: tl.constexpr):
    # Program 0 fills the block and raises the flag with release; the others wait
    # for it with volatile loads and then read the data it guards: nothing orders
    # the data read after the flag (acquire-missing).
    offs = tl.arange(0, BLOCK)
    if tl.program_id(0) == 0:
        tl.store(data + offs, offs + 1)
        tl.debug_barrier()
        tl.atomic_xchg(flag, 1, sem="release")
    else:
        while tl.load(flag, volatile=True) == 0:
            pass  # reported here: acquire-missing (Triton puts the loop's exit on this line)
        tl.store(out + offs, tl.load(data + offs))


@triton.jit
def poll_acquire(data, flag, out, BLOCK: tl.constexpr):
    # The fixed consumer: the flag is read with acquire semantics.
    offs = tl.arange(0, BLOCK)
    if tl.program_id(0) == 0:
        tl.store(data + offs, offs + 1)
        tl.debug_barrier()
        tl.atomic_xchg(flag, 1, sem="release")
    else:
        while tl.atomic_add(flag, 0, sem="acquire") == 0:
            pass
        tl.store(out + offs, tl.load(data + offs))


@triton.jit
def publish_relaxed(data, flag, out, BLOCK: tl.constexpr):
    # Program 0 fills the block and raises the flag with a relaxed exchange: the
    # other programs, which wait with acquire, may still read stale data
    # (release-missing).
    offs = tl.arange(0, BLOCK)
    if tl.program_id(0) == 0:
        tl.store(data + offs, offs + 1)
        tl.debug_barrier()
        tl.atomic_xchg(flag, 1, sem="relaxed")  # reported here: release-missing
    else:
        while tl.atomic_add(flag, 0, sem="acquire") == 0:
            pass
        tl.store(out + offs, tl.load(data + offs))


@triton.jit
def publish_release(data, flag, out, BLOCK: tl.constexpr):
    # The fixed hand-off: the flag is raised with release semantics.
    offs = tl.arange(0, BLOCK)
    if tl.program_id(0) == 0:
        tl.store(data + offs, offs + 1)
        tl.debug_barrier()
        tl.atomic_xchg(flag, 1, sem="release")
    else:
        while tl.atomic_add(flag, 0, sem="acquire") == 0:
            pass
        tl.store(out + offs, tl.load(data + offs))


SIGNATURE = {"data": "*i32", "flag": "*i32", "out": "*i32"}


def compile(kernel, block=128, arch=90):
    """triton.compile for sm_<arch> with no GPU: what a launch would compile."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    return triton.compile(ASTSource(kernel, SIGNATURE, {"BLOCK": block}), target=GPUTarget("cuda", arch, 32))
