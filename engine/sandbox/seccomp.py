"""A seccomp filter for the bubblewrap sandbox: no AF_UNIX sockets, no io_uring, no foreign syscall ABI, no
widening of the CPU affinity.

The read-only binds of ``/usr`` and ``/lib`` may hold a host unix socket, and connecting to one needs no
write access to the file system; a filter on ``socket(AF_UNIX, ...)`` closes that door whatever the binds
hold (``socketpair`` stays: its two ends reach only each other). io_uring is refused because its requests
open and connect sockets without passing through those system calls, and a second ABI (x86's 32-bit
entry points, x32) because its syscall numbers differ from those checked here. ``sched_setaffinity`` is
refused because the one-CPU limit is an affinity set before the program starts, which it could otherwise
widen to every core of the host.

The program is classic BPF, which ``bwrap --seccomp FD`` reads from a descriptor and installs just before
it runs the program. On an architecture not listed here ``program()`` returns None and no filter is set.
"""

from __future__ import annotations

import errno
import platform
import socket
import struct

_LD_ABS_W = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RET = 0x06  # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000

_NR, _ARCH, _ARG0 = 0, 4, 16  # offsets in struct seccomp_data (little-endian: arg 0's low word at 16)
_X32_BIT = 0x40000000

#: machine -> (AUDIT_ARCH value, socket nr, then the numbers refused outright: io_uring_setup, io_uring_enter,
#: io_uring_register, sched_setaffinity)
_ARCHES = {
    "x86_64": (0xC000003E, 41, 425, 426, 427, 203),
    "aarch64": (0xC00000B7, 198, 425, 426, 427, 122),
}


def _op(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def program(machine: str | None = None) -> bytes | None:
    """The filter for ``machine`` (default: this one), or None where it is not known."""
    arch = _ARCHES.get(machine or platform.machine())
    if arch is None:
        return None
    audit, nr_socket, *refused = arch
    # Layout: 4 instructions of ABI checks, one jump per refused number, the socket check (3), ALLOW, DENY.
    first_refused = 5
    socket_at = first_refused + len(refused)
    ALLOW, DENY = socket_at + 3, socket_at + 4  # the last two instructions

    def to(target: int, here: int) -> int:  # a BPF jump counts from the instruction after ``here``
        return target - here - 1

    ops = [
        _op(_LD_ABS_W, 0, 0, _ARCH),  # 0
        _op(_JEQ, 1, 0, audit),  # 1: our ABI goes on; any other is refused
        _op(_RET, 0, 0, _ERRNO | errno.ENOSYS),  # 2
        _op(_LD_ABS_W, 0, 0, _NR),  # 3
        _op(_JGE, to(DENY, 4), 0, _X32_BIT),  # 4: x32 numbers
        *(_op(_JEQ, to(DENY, first_refused + i), 0, nr) for i, nr in enumerate(refused)),
        _op(_JEQ, 0, to(ALLOW, socket_at), nr_socket),  # socket() has its family checked; the rest is allowed
        _op(_LD_ABS_W, 0, 0, _ARG0),
        _op(_JEQ, to(DENY, socket_at + 2), 0, socket.AF_UNIX),
        _op(_RET, 0, 0, _ALLOW),
        _op(_RET, 0, 0, _ERRNO | errno.EACCES),
    ]
    assert len(ops) == DENY + 1
    return b"".join(ops)
