"""Session options for every ONNX model citeproof runs on the CPU (the embedder, the judge's
readers): one definition, so a model gives the same numbers on every x86-64 machine.

The shipped models are int8 (dynamically quantised MatMulInteger). onnxruntime multiplies
uint8 activations by int8 weights; without VNNI (AVX2-only CPUs, many AMD EPYCs) its kernel
adds pairs of products in 16 bits with saturation (``vpmaddubsw``), so the same model on the
same text gives other logits there than on a CPU with VNNI or AMX, where the sum is exact.
``session.x64quantprecision`` makes onnxruntime widen to 16 bits before multiplying: the exact
result everywhere, so a verdict and its calibrated probability do not depend on the machine and
the judge's calibration (fitted on one machine) holds on all of them. It is set only where the
default kernel is not exact (an x86-64 CPU without VNNI): there it is what correctness costs,
while on a CPU with VNNI the default is already exact and the widened kernel only slower (2.5x
per window of the judge's reader, measured on a Xeon with AVX-512 VNNI).
"""

from __future__ import annotations

import platform
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # onnxruntime is imported where a session is built (an optional extra)
    import onnxruntime

# onnxruntime's session config keys (include/onnxruntime/core/session/
# onnxruntime_session_options_config_keys.h).
EXACT_INTEGER_PRODUCTS: Final = "session.x64quantprecision"
ALLOW_SPINNING: Final = "session.intra_op.allow_spinning"
CPUINFO: Final = Path("/proc/cpuinfo")
# CPU flags (Linux's names) whose int8 dot products onnxruntime uses and which sum exactly.
EXACT_INT8_FLAGS: Final = frozenset({"avx512_vnni", "avx_vnni", "amx_int8"})
X86_64: Final = frozenset({"x86_64", "amd64"})


def int8_products_saturate(cpuinfo: Path = CPUINFO) -> bool:
    """True on an x86-64 CPU whose int8 kernel saturates (no VNNI): the exact kernel is needed.
    An x86-64 machine whose flags cannot be read is treated as one (exact is never wrong)."""
    if platform.machine().lower() not in X86_64:
        return False  # the option is x86-64 only
    try:
        text = cpuinfo.read_text(encoding="ascii", errors="replace")
    except OSError:
        return True
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name.strip() == "flags":
            return not EXACT_INT8_FLAGS & set(value.split())
    return True


@cache
def _saturates() -> bool:
    return int8_products_saturate()


def cpu_session_options(threads: int) -> onnxruntime.SessionOptions:
    """Options for a CPU inference session of ``threads`` intra-op threads."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads
    # One operator at a time: the models are sequential stacks; parallel operators would only
    # add threads competing for the same cores as the other processes of a worker host.
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    # Idle worker threads spinning for work steal CPU from the other processes on the box.
    options.add_session_config_entry(ALLOW_SPINNING, "0")
    if _saturates():
        options.add_session_config_entry(EXACT_INTEGER_PRODUCTS, "1")
    return options
