"""gpudoctor's in-image probe: what this image really holds, as one JSON line on stdout.

Not part of any image: `gpudoctor build` passes it to the image's Python after the build
(`python -c SCRIPT FRAMEWORK [--kernel]`); `gpudoctor check --deep` runs it on the host too,
with the interpreter gpudoctor runs under. Anyone can run it by hand against an image:

    docker run --rm -i --gpus all --entrypoint /opt/venv/bin/python IMAGE - pytorch --kernel \
        < verify_image.py

Standard library only besides the framework itself; Python 3.8+ syntax. The JSON line starts
with a marker so that banners or library chatter on stdout cannot be mistaken for it. `--kernel`
runs one small computation on the GPU when one is available. Keys (all optional but
python_version, errors): framework, framework_version, built_cuda, built_cudnn, cuda_available,
device_count, arch_list, devices [{index, name, capability}], cuda_warnings, imported,
import_seconds, import_error, kernel_ok, kernel_result, kernel_expected, kernel_error,
device_name, cuda_libraries ({library: [folders holding it]}), cuda_library_duplicates (the
libraries found in more than one folder: an image should hold each CUDA library once).
"""

import contextlib
import glob
import importlib
import json
import os
import platform
import re
import sys
import time
import traceback
import warnings

MARKER = "GPUDOCTOR-VERIFY "
KERNEL_EXPECTED = float(1023 * 1024)  # sum(2 * x for x in range(1024))


# CUDA user-space libraries a framework loads; the driver's own libcuda is not one of them.
CUDA_LIBRARIES = (
    "libcublasLt", "libcublas", "libcudart", "libcudnn", "libcufft", "libcufile", "libcupti",
    "libcurand", "libcusolver", "libcusparse", "libnccl", "libnvJitLink", "libnvrtc",
)  # fmt: skip
_LIBRARY = re.compile(r"^(%s)(?:[._])" % "|".join(CUDA_LIBRARIES))
# Where the system keeps them (nvidia/cuda images: /usr/local/cuda-X.Y; distro packages: the
# multiarch folder) and where pip wheels put them (site-packages/nvidia/<lib>/lib, and the one
# nvidia/cu13/lib folder of CUDA 13 wheels).
SYSTEM_GLOBS = (
    "/usr/local/cuda*/lib64", "/usr/local/cuda*/lib", "/usr/local/cuda*/targets/*/lib",
    "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64",
)  # fmt: skip
SITE_GLOBS = ("nvidia/*/lib", "nvidia/*/*/lib", "torch/lib")


def library_folders(paths=None):
    """The folders to look in: the system's and every sys.path entry's wheel folders."""
    found = [f for pattern in SYSTEM_GLOBS for f in glob.glob(pattern)]
    for entry in paths if paths is not None else sys.path:
        if entry and os.path.isdir(entry):
            found += [f for pattern in SITE_GLOBS for f in glob.glob(os.path.join(entry, pattern))]
    return found


def cuda_library_copies(folders):
    """{library: sorted real folders holding it}; symlinked folders count once."""
    copies = {}
    for folder in sorted({os.path.realpath(f) for f in folders}):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            match = _LIBRARY.match(name)
            if match:
                copies.setdefault(match.group(1), set()).add(folder)
    return {lib: sorted(dirs) for lib, dirs in sorted(copies.items())}


def _cudnn_text(number):
    """cudnn.version() int -> "9.1.0" (cuDNN 9: M*10000+m*100+p; 8: M*1000+m*100+p)."""
    if number is None:
        return None
    number = int(number)
    if number >= 10000:
        return "%d.%d.%d" % (number // 10000, number % 10000 // 100, number % 100)
    return "%d.%d.%d" % (number // 1000, number % 1000 // 100, number % 100)


def _run_kernel(report, compute):
    """Run `compute` (the small GPU computation); its failure is a result, not a crash."""
    report["kernel_expected"] = KERNEL_EXPECTED
    try:
        result = float(compute())
    except Exception as exc:  # "no kernel image is available", out of memory, ...
        report["kernel_ok"] = False
        report["kernel_error"] = "%s: %s" % (type(exc).__name__, exc)
        return
    report["kernel_result"] = result
    report["kernel_ok"] = result == KERNEL_EXPECTED


def _available(report, probe):
    """Record probe() as cuda_available, keeping the warnings that say why it is False
    (torch warns "The NVIDIA driver on your system is too old" and returns False)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report["cuda_available"] = bool(probe())
    report["cuda_warnings"] = [str(w.message).strip()[:500] for w in caught]


def compiled_arch_list(torch):
    """The architectures torch was compiled for ("sm_80", "compute_90"), or None. Before
    2.14 torch.cuda.get_arch_list() returns [] where CUDA is not available (no GPU at build
    time), though the list is a fact of the build: then read the flags it would have read,
    torch._C._cuda_getArchFlags(), which needs no device."""
    if not hasattr(torch.cuda, "get_arch_list"):
        return None
    arch_list = list(torch.cuda.get_arch_list())
    flags = getattr(getattr(torch, "_C", None), "_cuda_getArchFlags", None)
    if arch_list or flags is None:
        return arch_list
    try:
        text = flags()
    except Exception:  # a CPU-only build has no CUDA flags to give
        return arch_list
    return text.split() if isinstance(text, str) else arch_list


def probe_torch(torch, report, kernel):
    report["framework"] = "pytorch"
    report["framework_version"] = torch.__version__
    report["built_cuda"] = torch.version.cuda
    cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
    report["built_cudnn"] = _cudnn_text(cudnn)
    _available(report, torch.cuda.is_available)
    report["device_count"] = torch.cuda.device_count() if report["cuda_available"] else 0
    arch_list = compiled_arch_list(torch)
    if arch_list is not None:
        report["arch_list"] = arch_list
    report["devices"] = [
        {
            "index": i,
            "name": torch.cuda.get_device_name(i),
            "capability": "%d.%d" % tuple(torch.cuda.get_device_capability(i)),
        }
        for i in range(report["device_count"])
    ]
    if kernel and report["cuda_available"]:
        report["device_name"] = torch.cuda.get_device_name(0)

        def compute():
            x = torch.arange(1024, dtype=torch.float32, device="cuda")
            return (x * 2).sum().item()

        _run_kernel(report, compute)


def _tf_device(tf, index, device):
    entry = {"index": index, "name": None, "capability": None}
    try:  # experimental since TF 2.3; details only, never worth failing the report
        details = tf.config.experimental.get_device_details(device)
    except Exception:
        return entry
    entry["name"] = details.get("device_name")
    if details.get("compute_capability"):
        entry["capability"] = "%d.%d" % tuple(details["compute_capability"])
    return entry


def probe_tensorflow(tf, report, kernel):
    info = tf.sysconfig.get_build_info()
    report["framework"] = "tensorflow"
    report["framework_version"] = tf.__version__
    report["built_cuda"] = info.get("cuda_version")
    report["built_cudnn"] = info.get("cudnn_version")
    gpus = []

    def find_gpus():
        gpus.extend(tf.config.list_physical_devices("GPU"))
        return gpus

    _available(report, find_gpus)
    report["device_count"] = len(gpus)
    report["devices"] = [_tf_device(tf, i, g) for i, g in enumerate(gpus)]
    if kernel and gpus:

        def compute():
            with tf.device("/GPU:0"):
                x = tf.range(1024, dtype=tf.float32)
                return tf.reduce_sum(x * 2).numpy()

        _run_kernel(report, compute)


def _jax_cuda(jax):
    """(CUDA the jax CUDA plugin was built with, cuDNN it loaded) as "13.0" and "9.19.0": the
    plugin's version module (jax_cuda13_plugin._versions), which jax keeps as
    jax._src.lib.cuda_versions once its GPU backend is up; (None, None) where it has none."""
    try:
        from jax._src.lib import cuda_versions as found
    except Exception:  # a private module: absent from other jax releases
        return None, None
    cuda = cudnn = None
    with contextlib.suppress(Exception):  # None (no CUDA plugin), or a release without these
        number = int(found.cuda_runtime_build_version())
        cuda = "%d.%d" % (number // 1000, number % 1000 // 10)
    with contextlib.suppress(Exception):
        cudnn = _cudnn_text(found.cudnn_get_version())
    return cuda, cudnn


def probe_jax(jax, report, kernel):
    report["framework"] = "jax"
    report["framework_version"] = jax.__version__
    gpus = []

    def find_gpus():
        # RuntimeError "Unknown backend: 'gpu' requested": a CPU-only jaxlib.
        with contextlib.suppress(RuntimeError):
            gpus.extend(jax.devices("gpu"))
        return gpus

    _available(report, find_gpus)
    if gpus:
        report["built_cuda"], report["built_cudnn"] = _jax_cuda(jax)
    report["device_count"] = len(gpus)
    report["devices"] = [
        {
            "index": i,
            "name": getattr(d, "device_kind", None),
            "capability": getattr(d, "compute_capability", None),
        }
        for i, d in enumerate(gpus)
    ]
    if kernel and gpus:

        def compute():
            x = jax.device_put(jax.numpy.arange(1024, dtype=jax.numpy.float32), gpus[0])
            return (x * 2).sum()

        _run_kernel(report, compute)


PROBES = {
    "pytorch": ("torch", probe_torch),
    "tensorflow": ("tensorflow", probe_tensorflow),
    "jax": ("jax", probe_jax),
}


def main(argv):
    kernel = "--kernel" in argv
    wanted = [a for a in argv if not a.startswith("--")]
    report = {
        "python_version": "%d.%d.%d" % sys.version_info[:3],
        "python_executable": sys.executable,
        "machine": platform.machine(),
        "errors": [],
    }
    copies = cuda_library_copies(library_folders())
    report["cuda_libraries"] = copies
    report["cuda_library_duplicates"] = {k: v for k, v in copies.items() if len(v) > 1}
    for name in wanted or list(PROBES):
        module_name, probe = PROBES[name]
        started = time.perf_counter()
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:  # ImportError, or OSError from a shared library that won't load
            report["errors"].append("%s: cannot import %s: %s" % (name, module_name, exc))
            report["import_error"] = "%s: %s" % (type(exc).__name__, exc)
            continue
        report["imported"] = name
        report["import_seconds"] = round(time.perf_counter() - started, 3)
        report.pop("import_error", None)
        try:
            probe(module, report, kernel)
        except Exception:  # the probe must always print its report
            report["errors"].append("%s: %s" % (name, traceback.format_exc(limit=3)))
        break
    sys.stdout.write(MARKER + json.dumps(report, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
