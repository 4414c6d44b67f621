"""The compiled cores' event heaps (sim/heap.py): events leave in (time,
key) order, the key settling simultaneous ones, as the reference's tuples do."""
from __future__ import annotations

from wla.sim.heap import empty, pop, push


def test_events_leave_by_time_then_key():
    ht, hk, hj = empty(8)
    size = 0
    for t, key, job in [(5.0, 2, 20), (3.0, 9, 90), (5.0, 1, 10), (3.0, 7, 70), (4.0, 0, 40)]:
        size = push(ht, hk, hj, size, t, key, job)
    assert size == 5
    out = []
    while size:
        out.append((ht[0], hk[0], hj[0]))
        size = pop(ht, hk, hj, size)
    assert out == [(3.0, 7, 70), (3.0, 9, 90), (4.0, 0, 40), (5.0, 1, 10), (5.0, 2, 20)]
