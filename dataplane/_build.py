"""cffi out-of-line API-mode build of the C core.

The cdef is cut from the real public header (between CDEF-BEGIN and CDEF-END),
so the compiler checks every prototype against the implementation and the two
can never drift.  Every C file in csrc/ (not its subdirectories) is compiled in.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from cffi import FFI

ROOT = Path(__file__).resolve().parent.parent
CSRC = ROOT / "csrc"
HEADER = CSRC / "include" / "jbof.h"
CFLAGS = ["-O2", "-std=c11", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE", "-fno-strict-aliasing"]


def cdef_text() -> str:
    text = HEADER.read_text()
    m = re.search(r"/\* CDEF-BEGIN \*/(.*)/\* CDEF-END \*/", text, re.S)
    if not m:
        raise RuntimeError(f"{HEADER}: CDEF markers missing")
    lines = [ln for ln in m.group(1).splitlines() if not ln.lstrip().startswith("#")]
    return "\n".join(lines)


def extra_cdefs() -> str:
    """Optional extra headers (e.g. the reactor's) joined into the same cdef."""
    out = []
    for h in sorted((CSRC / "include").glob("jbof_*.h")):
        t = h.read_text()
        m = re.search(r"/\* CDEF-BEGIN \*/(.*)/\* CDEF-END \*/", t, re.S)
        if m:
            out.append("\n".join(ln for ln in m.group(1).splitlines() if not ln.lstrip().startswith("#")))
    return "\n".join(out)


def link_libs() -> list[str]:
    libs = ["m", "pthread"]
    if os.environ.get("JBOF_NO_URING") != "1" and (Path("/usr/include/liburing.h").exists()):
        libs.append("uring")
    if os.environ.get("JBOF_NO_GNUTLS") != "1" and Path("/usr/include/gnutls/gnutls.h").exists():
        libs.append("gnutls")  # csrc/tls.c: STARTTLS / TLS-PSK (Debian libgnutls28-dev)
    return libs


def sources() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in CSRC.glob("*.c"))


ffibuilder = FFI()
ffibuilder.cdef(cdef_text() + "\n" + extra_cdefs())
_includes = "\n".join(f'#include "{h.name}"' for h in sorted((CSRC / "include").glob("jbof*.h")))
_defines = ["-DJBOF_HAVE_URING=1"] if "uring" in link_libs() else []
_defines += ["-DJBOF_HAVE_GNUTLS=1"] if "gnutls" in link_libs() else []
ffibuilder.set_source(
    "dataplane._jbof",
    _includes,
    sources=sources(),
    include_dirs=[str(CSRC / "include")],
    extra_compile_args=CFLAGS + _defines,
    libraries=link_libs(),
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
