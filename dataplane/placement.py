"""Namespace placement without an Engine: csrc/export.c section 2's first fit
(``jbof_place_first_fit``), the one copy of its rules (given ranges occupied, 1 MiB
alignment when the size is a multiple of 1 MiB, else the drive's block, at least
4 KiB).  The daemon uses it to place tenants clear of space still pending a zeroing
scrub before the Engine exists (control/state.py place_clear_of_pending).

    first_fit(128 << 20, 4096, 32 << 20, [(0, 32 << 20)])   # 33554432
"""
from __future__ import annotations

import errno
from collections.abc import Sequence

from dataplane import check
from dataplane._jbof import ffi, lib

__all__ = ["first_fit"]

U64 = (1 << 64) - 1


def first_fit(drive_bytes: int, block_bytes: int, size: int,
              taken: Sequence[tuple[int, int]]) -> int | None:
    """The offset where the Engine's first fit puts ``size`` bytes on a drive of
    ``drive_bytes`` (rounded down to its block, ``block_bytes``; 0 = 1) with the
    ``(offset, length)`` ranges of ``taken`` occupied; None when it fits nowhere
    clear of them.  DataplaneError (EINVAL) for arguments the C function refuses:
    a block that is not a power of two, a size of 0 or not a multiple of the block,
    a range of length 0 or ending past 2^64; ValueError for a negative number or one
    past 2^64."""
    args = [drive_bytes, size, *(v for r in taken for v in r)]
    if any(not 0 <= v <= U64 for v in args) or not 0 <= block_bytes < 1 << 32:
        raise ValueError(f"first_fit: drive {drive_bytes}, block {block_bytes}, size {size}, "
                         f"taken {list(taken)}: every number must be in [0, 2^64) (the "
                         "block in [0, 2^32))")
    rs = ffi.new("jbof_range[]", max(1, len(taken)))
    for i, (off, n) in enumerate(taken):
        rs[i].off = off
        rs[i].len = n
    out = ffi.new("uint64_t *")
    rc = lib.jbof_place_first_fit(drive_bytes, block_bytes, size, rs, len(taken), out)
    if rc == -errno.ENOSPC:
        return None
    check(rc, "jbof_place_first_fit", f"{size} bytes on a drive of {drive_bytes} "
          f"(block {block_bytes}), taken {list(taken)}")
    return int(out[0])
