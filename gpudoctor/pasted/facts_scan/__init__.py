"""Facts in any line of a paste, whatever its shape: environment lists in prose ("Driver: NVIDIA
550.54.15, CUDA 12.4", "4x A100 80GB"), start-up logs (vLLM, llama.cpp, NCCL INFO; ollama's
are apps.py's), kernel logs (NVRM module and Xid lines), `uname -a`, `lscpu`, `docker version`,
`nvidia-ctk --version`, `kubectl describe node`, a Dockerfile's FROM line, `conda list`, `lsmod`,
`dkms status`, `dpkg -l` (the driver packages, `nvidia-l4t-core`, `nvidia-jetpack`), Jetson
releases (/etc/nv_tegra_release, "JetPack 5.1.2", "JP6.0", "L4T 32.7.1", "r32.6.1" on a line
naming the Jetson), PyTorch's capability warning, CuPy's show_config (its NVRTC), `ldd` and
`LD_DEBUG=libs` traces (the files CUDA libraries were loaded from), and the words that say what
a text is about (a framework, an AMD GPU, a Jetson, an image build: `Draft.named`).

Each rule is a literal needle (found with str.find, so a 10 MB log costs a few linear scans)
and a pattern run on the lines that hold it; a fact is written only with the words that say
what it is (a bare "12.4" is nothing; "CUDA Version: 12.4" is the driver's CUDA, as nvidia-smi
prints it; "CUDA 12.4" alone does not say whose CUDA it is and stays a note). Facts of the
recognised blocks come first: `put` never overwrites them.

GPU names in prose are read last, by gpu_names.py, against the matrix's model lists.

The package's modules, one topic each; each holds its handlers and the rules of its runs of the
one ordered table, which core.py assembles (the order decides which rule reads a line first):
- rule.py: the rule's shape (`_Rule`, `_rx`, `Handler`) and the pieces every topic uses;
- drivers.py: the driver's version, NVML, the kernel modules' load lines, DKMS, Xid lines;
- cuda.py: the CUDA driver/toolkit/runtime versions, nvcc, cuDNN, NCCL;
- frameworks.py: Python, pip and wheels, the frameworks' and programs' versions;
- devices.py: GPUs and device nodes (CUDA_VISIBLE_DEVICES, /dev/nvidia*, llama.cpp's devices);
- jetson.py: Jetson releases (L4T, JetPack), its tools, kernel and board;
- host.py: the kernel release, the OS, the CPU's machine, conda's platform, WSL and Windows;
- containers.py: container engines and runtimes, the toolkit, images, CRI configs;
- kubernetes.py: Kubernetes named, its versions and distributions, pods' GPU requests;
- mig_vgpu.py: MIG and vGPU (licences, nvidia-gridd);
- libraries.py: the files CUDA libraries load from (ldd, ldconfig, LD_DEBUG, LD_LIBRARY_PATH);
- prose.py: the words that say what a text is about (`Draft.named`);
- core.py: the table, `parse` and the scan.
"""

from __future__ import annotations

from gpudoctor.pasted.facts_scan.core import (
    _NEEDLES,
    _NOT_TOLD,
    _RULES,
    _fingerprint,
    parse,
)
from gpudoctor.pasted.facts_scan.rule import DESCRIPTION, NAME

__all__ = [
    "DESCRIPTION",
    "NAME",
    "_NEEDLES",
    "_NOT_TOLD",
    "_RULES",
    "_fingerprint",
    "parse",
]
