"""Property-based tests of the scheduler's invariants, through the C API.

Hypothesis drives random interleavings of submit / dispatch / complete /
policy switches / tenant reconfiguration against one jbof_sched, and checks
after every step and at the end that no IO is lost or duplicated and that
IOs leave each tenant's queue in FIFO order -- under every policy.
"""
from __future__ import annotations

from collections import deque

from hypothesis import given, settings
from hypothesis import strategies as st

from dataplane._jbof import ffi, lib

POLICIES = list(range(lib.JBOF_POLICY_COUNT))

op = st.one_of(
    st.tuples(st.just("submit"), st.integers(0, 3), st.sampled_from([0, 1, 2, 3, 4]),
              st.sampled_from([512, 4096, 65536, 131072, 1 << 20])),
    st.tuples(st.just("dispatch"), st.integers(1, 40)),
    st.tuples(st.just("complete"), st.integers(0, 1000), st.sampled_from([0, 0, 0, -5])),
    st.tuples(st.just("advance"), st.integers(1, 2_000_000)),
    st.tuples(st.just("policy"), st.sampled_from(POLICIES)),
    st.tuples(st.just("set"), st.integers(0, 3), st.integers(1, 8), st.sampled_from([0, 1, 2, 3]),
              st.sampled_from([0, 50 << 20, 1 << 30])),
    st.tuples(st.just("flush"), st.integers(0, 3), st.integers(0, 20)),   # tenant removal's
)


def make(policy: int):
    cfg = ffi.new("jbof_sched_cfg *")
    assert lib.jbof_sched_default_cfg(policy, cfg) == 0
    pp = ffi.new("jbof_sched **")
    assert lib.jbof_sched_create(cfg, pp) == 0
    s = ffi.gc(pp[0], lib.jbof_sched_destroy)
    ids = []
    for i in range(4):
        tc = ffi.new("jbof_tenant_cfg *")
        lib.jbof_tenant_default_cfg(tc)
        tc.sq_depth = 16
        tc.weight = i + 1
        idp = ffi.new("uint32_t *")
        assert lib.jbof_sched_tenant_add(s, tc, 0, idp) == 0
        ids.append(idp[0])
    return s, ids


def submit_checked(s, now: int, ids: list, t: int, opc: int, length: int, tag: int, depth: int,
                   queued: dict, owned: dict) -> int:
    """Submit one IO of tenant t tagged (t << 32) | tag; returns 1 if it was
    queued (it joins queued[t] and owned), 0 if refused -- which must be
    -EAGAIN with the tenant's queue of depth full."""
    io = ffi.new("jbof_io *")
    io.tenant = ids[t]
    io.opcode = opc
    io.length_bytes = length
    io.tag = (t << 32) | tag
    rc = lib.jbof_sched_submit(s, io, now)
    if rc != 0:
        assert rc == -11 and len(queued[t]) == depth, rc   # -EAGAIN only when full
        return 0
    queued[t].append(io.tag)
    owned[int(io.tag)] = io
    return 1


def dispatch_checked(s, now: int, out, n: int, queued: dict, inflight: dict, owned: dict, completed: set) -> int:
    """One dispatch call of at most n IOs: each IO was queued, comes in its
    tenant's submit order, is not in flight or completed already, and is
    the descriptor submitted; it moves from owned to inflight."""
    k = lib.jbof_sched_dispatch(s, now, out, n)
    assert 0 <= k <= n, (k, n)
    for j in range(k):
        io = out[j]
        t = int(io.tag) >> 32
        assert queued[t], "dispatched an IO nobody queued"
        assert queued[t].popleft() == io.tag, "FIFO within a tenant broken"
        assert io.tag not in inflight and io.tag not in completed, "duplicated"
        assert io == owned[int(io.tag)], "not the submitted descriptor"
        inflight[io.tag] = owned.pop(int(io.tag))
    return k


@settings(max_examples=150, deadline=None)
@given(policy=st.sampled_from(POLICIES), ops=st.lists(op, min_size=1, max_size=150))
def test_no_io_lost_duplicated_or_reordered(policy: int, ops: list) -> None:
    s, ids = make(policy)
    now = 0
    tag = 0
    queued: dict[int, deque[int]] = {i: deque() for i in range(4)}   # per tenant, in submit order
    inflight: dict[int, object] = {}                                   # tag -> dispatched descriptor
    owned: dict[int, object] = {}      # tag -> submitted descriptor: the SQ points at it (ABI 3), keep it alive
    completed: set[int] = set()
    flushed: set[int] = set()
    out = ffi.new("jbof_io *[64]")

    def dispatch(n: int) -> None:
        dispatch_checked(s, now, out, n, queued, inflight, owned, completed)

    for o in ops:
        if o[0] == "submit":
            _, t, opc, length = o
            tag += submit_checked(s, now, ids, t, opc, length, tag, 16, queued, owned)
        elif o[0] == "dispatch":
            dispatch(o[1])
        elif o[0] == "complete" and inflight:
            key = sorted(inflight)[o[1] % len(inflight)]
            assert lib.jbof_sched_complete(s, inflight.pop(key), now, o[2]) == 0
            completed.add(key)
        elif o[0] == "advance":
            now += o[1]
        elif o[0] == "policy":
            assert lib.jbof_sched_set_policy(s, o[1], now) == 0
        elif o[0] == "set":
            _, t, w, klass, limit = o
            tc = ffi.new("jbof_tenant_cfg *")
            assert lib.jbof_sched_tenant_get_cfg(s, ids[t], tc) == 0
            tc.weight, tc.klass, tc.limit_bps = w, klass, limit
            assert lib.jbof_sched_tenant_set(s, ids[t], tc, now) == 0
        elif o[0] == "flush":   # queued IO handed back undispatched, oldest first
            _, t, n = o
            k = lib.jbof_sched_tenant_flush(s, ids[t], out, n, now)
            assert k == min(n, len(queued[t])), (k, n, len(queued[t]))
            for j in range(k):
                assert queued[t].popleft() == out[j].tag, "flush out of FIFO order"
                flushed.add(int(out[j].tag))
                owned.pop(int(out[j].tag))

    # drain: everything queued must come out, in order, within bounded time
    for _ in range(100_000):
        if not any(queued.values()) and not inflight:
            break
        dispatch(64)
        for key in list(inflight):
            assert lib.jbof_sched_complete(s, inflight.pop(key), now, 0) == 0
            completed.add(key)
        nxt = lib.jbof_sched_next_event_ns(s, now)
        now = max(now + 1000, nxt if nxt != 2**64 - 1 else now + 1000)
    assert not any(queued.values()), "IO stuck in a queue"
    st_ = ffi.new("jbof_tenant_stats *")
    total_sub = total_done = total_flushed = 0
    for t in range(4):
        assert lib.jbof_sched_tenant_stats(s, ids[t], st_) == 0
        assert st_.queued == 0 and st_.inflight == 0
        total_sub += st_.submitted
        total_done += st_.completed
        total_flushed += st_.flushed
    assert not completed & flushed, "an IO both flushed and completed"
    assert total_sub == total_done + total_flushed == tag == len(completed) + len(flushed)
    assert total_flushed == len(flushed)


# ---- section 222: qos's round under live flips (section 216's release loop) ----
# Weights, classes, limits, reservations and SLOs flip at random instants
# between dispatch calls -- an SLO on a latency-critical tenant or a
# scavenger switches qos between one and two token buckets (section 18), a
# reservation brings in sections 28 / 31a / 95's escape takes and section
# 38's path -- while six tenants keep IO queued and time moves in steps
# small enough that the buckets sit near empty (tenants held on them).
# Every dispatch call must return (a watchdog ends the process if one call
# runs REL_WATCHDOG_S: section 216's loop never returns), hand back at most
# max IOs, each IO exactly once, in FIFO order per tenant; at the end every
# IO completes exactly once.
import faulthandler
import os
import tempfile

REL_WATCHDOG_S = 60
# pytest captures fd 2, and the watchdog ends the process: its traceback
# goes to this file (the run exits with status 1 and prints nothing else)
REL_WATCHDOG_FILE = os.path.join(tempfile.gettempdir(), "test_sched_props.watchdog.txt")
REL_T = 6
MB = 1 << 20

rel_op = st.one_of(
    st.tuples(st.just("submit"), st.integers(0, REL_T - 1), st.sampled_from([0, 0, 1, 1, 2]),
              st.sampled_from([4096, 65536, 131072, 262144, 1 << 20]), st.integers(1, 8)),
    st.tuples(st.just("burst"), st.sampled_from([0, 0, 1]), st.sampled_from([4096, 65536, 262144])),
    st.tuples(st.just("dispatch"), st.sampled_from([1, 2, 3, 8, 64, 64])),
    st.tuples(st.just("complete"), st.integers(0, 1000), st.integers(1, 8)),
    st.tuples(st.just("advance"), st.sampled_from([1_000, 5_000, 20_000, 100_000, 1_000_000, 60_000_000])),
    st.tuples(st.just("set"), st.integers(0, REL_T - 1), st.integers(1, 8), st.sampled_from([0, 1, 2, 2, 3]),
              st.sampled_from([0, 0, 50 * MB, 1 << 30]), st.sampled_from([0, 0, 20 * MB, 1500 * MB]),
              st.sampled_from([0, 200_000, 2_000_000])),
)


def make_qos_rel():
    cfg = ffi.new("jbof_sched_cfg *")
    assert lib.jbof_sched_default_cfg(lib.JBOF_POLICY_QOS, cfg) == 0
    pp = ffi.new("jbof_sched **")
    assert lib.jbof_sched_create(cfg, pp) == 0
    s = ffi.gc(pp[0], lib.jbof_sched_destroy)
    ids = []
    for i in range(REL_T):
        tc = ffi.new("jbof_tenant_cfg *")
        lib.jbof_tenant_default_cfg(tc)
        tc.sq_depth = 32
        tc.weight = 1 + i % 3
        if i == 0:   # a latency-critical tenant with an SLO: two buckets from the start
            tc.klass = lib.JBOF_CLASS_LATENCY
            tc.latency_slo_ns = 2_000_000
        idp = ffi.new("uint32_t *")
        assert lib.jbof_sched_tenant_add(s, tc, 0, idp) == 0
        ids.append(idp[0])
    return s, ids


@settings(max_examples=200, deadline=None)
@given(ops=st.lists(rel_op, min_size=20, max_size=250))
def test_qos_round_returns_under_flips(ops: list) -> None:
    with open(REL_WATCHDOG_FILE, "w") as wd:
        wd.write(f"a jbof_sched_dispatch call did not return within {REL_WATCHDOG_S} s "
                 f"(section 216's release loop?); the ops: {ops!r}\n")
        wd.flush()
        faulthandler.dump_traceback_later(REL_WATCHDOG_S, exit=True, file=wd)
        try:
            _qos_round_returns_under_flips(ops)
        finally:
            faulthandler.cancel_dump_traceback_later()


def _qos_round_returns_under_flips(ops: list) -> None:
    s, ids = make_qos_rel()
    now = 1
    tag = 0
    queued: dict[int, deque[int]] = {i: deque() for i in range(REL_T)}
    inflight: dict[int, object] = {}
    owned: dict[int, object] = {}
    completed: set[int] = set()
    out = ffi.new("jbof_io *[64]")

    def dispatch(n: int) -> int:
        return dispatch_checked(s, now, out, n, queued, inflight, owned, completed)

    def complete(key: int) -> None:
        assert lib.jbof_sched_complete(s, inflight.pop(key), now, 0) == 0
        completed.add(key)

    for o in ops:
        if o[0] == "submit":
            _, t, opc, length, count = o
            for _ in range(count):
                if not submit_checked(s, now, ids, t, opc, length, tag, 32, queued, owned):
                    break
                tag += 1
        elif o[0] == "burst":   # every tenant queues 4 IOs of one kind: several wait on one bucket
            _, opc, length = o
            for t in range(REL_T):
                for _ in range(4):
                    if not submit_checked(s, now, ids, t, opc, length, tag, 32, queued, owned):
                        break
                    tag += 1
        elif o[0] == "dispatch":
            dispatch(o[1])
        elif o[0] == "complete":
            for _ in range(o[2]):
                if not inflight:
                    break
                complete(sorted(inflight)[o[1] % len(inflight)])
        elif o[0] == "advance":
            now += o[1]
        elif o[0] == "set":
            _, t, w, klass, limit, reserve, slo = o
            tc = ffi.new("jbof_tenant_cfg *")
            assert lib.jbof_sched_tenant_get_cfg(s, ids[t], tc) == 0
            if limit and reserve > limit:
                reserve = limit
            tc.weight, tc.klass, tc.limit_bps, tc.reserve_bps, tc.latency_slo_ns = w, klass, limit, reserve, slo
            assert lib.jbof_sched_tenant_set(s, ids[t], tc, now) == 0

    # drain: a completion per 100 us of drive time, dispatch calls of 64
    for _ in range(50_000):
        if not any(queued.values()) and not inflight:
            break
        dispatch(64)
        for key in sorted(inflight)[:4]:
            complete(key)
        nxt = lib.jbof_sched_next_event_ns(s, now)
        now = max(now + 100_000, nxt if nxt != 2**64 - 1 else now + 100_000)
    assert not any(queued.values()) and not inflight, "IO stuck"
    st_ = ffi.new("jbof_tenant_stats *")
    total_sub = total_done = 0
    for t in range(REL_T):
        assert lib.jbof_sched_tenant_stats(s, ids[t], st_) == 0
        assert st_.queued == 0 and st_.inflight == 0
        total_sub += st_.submitted
        total_done += st_.completed
    assert total_sub == total_done == tag == len(completed)
