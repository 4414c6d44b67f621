"""The simulator's compiled parts, registered with the kernel's `jit` when
`wla.sim` is imported, so before any of their modules compiles."""
from __future__ import annotations

from wla.archive.kernel.jit import Part, register

MODULES = ("wla.sim.core", "wla.sim.conservative", "wla.sim.arrivals", "wla.sim.profile", "wla.sim.heap",
           "wla.sim.lists", "wla.sim.lastk")
CORE = register(Part("the simulator core", MODULES, ("wla.sim.warm:warm",), 20))
CHECK = register(Part("the schedule check", ("wla.sim.invariants",), ("wla.sim.warm:warm",), 5))
