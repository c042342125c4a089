"""Is the machine quiet enough to measure on? Other processes' CPU use while we measure.

A CPU benchmark that shares its cores with other work measures the other work: torch runs one
thread per core, and when one of them is descheduled the others wait for it at every parallel
region, so a call can take tens of times longer (a 0.5 ms MLP call took 23 ms on a busy 2-core
machine). The load average alone says too little (it trails by a minute and counts our own
threads), so this reads the kernel's CPU counters before and after and subtracts our own use:
what is left is what other processes took. No torch here.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

# Other processes taking more than this many cores' worth of the cores our threads need make
# the machine "busy": a quarter of a core is already enough to deschedule one of torch's
# threads a quarter of the time.
BUSY_CORES = 0.25


def cpus() -> int:
    """Cores this process may run on (its affinity mask, as torch counts them)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def load_average() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def _system_busy_s() -> float | None:
    """Seconds of CPU time all processes used since boot (Linux /proc/stat), steal included:
    time the hypervisor gave to another machine is time our threads did not get."""
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            fields = handle.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu" or len(fields) < 5:
        return None
    values = [int(v) for v in fields[1:]]
    # user nice system idle iowait irq softirq steal guest guest_nice; guests are in user already.
    busy = sum(values[:3]) + sum(values[5:8])
    return busy / os.sysconf("SC_CLK_TCK")


def _own_s() -> float:
    """CPU time of this process and of its children it has waited for (a measuring loop run
    as a subprocess is ours, not other work)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


@dataclass
class CpuWatch:
    """Other processes' CPU use from the moment it is made to the moment `others()` is asked."""

    wall: float
    system: float | None
    own: float

    @classmethod
    def start(cls) -> CpuWatch:
        return cls(time.perf_counter(), _system_busy_s(), _own_s())

    def others(self) -> float | None:
        """Cores' worth of CPU that other processes used meanwhile; None where the system's
        counters cannot be read (not Linux)."""
        system = _system_busy_s()
        elapsed = time.perf_counter() - self.wall
        if system is None or self.system is None or elapsed <= 0:
            return None
        used = (system - self.system) - (_own_s() - self.own)
        return round(max(0.0, used / elapsed), 2)


def is_busy(others_cpu: float | None, threads: int, available: int) -> bool:
    """Did other processes take cores our `threads` needed? With 16 cores and 4 threads, others
    may use 12 of them freely; with 2 threads on 2 cores, a quarter core is too much."""
    if others_cpu is None:
        return False
    spare = max(0, available - threads)
    return others_cpu > spare + BUSY_CORES
