# TileLang kernels for the compile-time hook tests (python/fenceline/tilelang.py).
# Written for fenceline; compiled for sm_90a with no GPU.
import tilelang
import tilelang.language as T

TARGET = {"kind": "cuda", "arch": "sm_90a"}


def handoff(poll_order, N=128):
    # Block 0 fills the data and raises the flag with a release store; block 1 waits
    # for the flag and reads the data. Polled with a relaxed load, nothing orders the
    # data read after the flag (acquire-missing); with an acquire load it is fixed.
    @T.prim_func
    def main(data: T.Tensor((N,), "int32"), flag: T.Tensor((1,), "int32"), out: T.Tensor((N,), "int32")):  # reported here
        with T.Kernel(2, threads=N) as bx:
            tx = T.get_thread_binding()
            if bx == 0:
                data[tx] = tx + 1
                T.sync_threads()
                if tx == 0:
                    T.atomic_store(flag, 1, memory_order="release")
            else:
                while T.atomic_load(flag, memory_order=poll_order) == 0:
                    pass
                out[tx] = data[tx]

    return main


def compile(func):
    return tilelang.compile(func, target=TARGET)


def lower(func):
    target = tilelang.tvm.target.Target(TARGET)
    with target:
        return tilelang.lower(func, target=target)
