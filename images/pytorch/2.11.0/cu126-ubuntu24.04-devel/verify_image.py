"""gpudoctor's in-image probe: what this image really holds, as one JSON line on stdout.

Copied into every image gpudoctor builds (/opt/gpudoctor/verify_image.py) and run by
`gpudoctor build` after the build; anyone can run it by hand:

    docker run --rm --gpus all IMAGE python /opt/gpudoctor/verify_image.py [--kernel]

Standard library only besides the framework itself; Python 3.8+ syntax. The JSON line starts
with a marker so that banners or library chatter on stdout cannot be mistaken for it. `--kernel`
runs one small computation on the GPU when one is available.
"""

import json
import platform
import sys
import traceback

MARKER = "GPUDOCTOR-VERIFY "


def _cudnn_text(number):
    """cudnn.version() int -> "9.1.0" (cuDNN 9: M*10000+m*100+p; 8: M*1000+m*100+p)."""
    if number is None:
        return None
    number = int(number)
    if number >= 10000:
        return "%d.%d.%d" % (number // 10000, number % 10000 // 100, number % 100)
    return "%d.%d.%d" % (number // 1000, number % 1000 // 100, number % 100)


def probe_torch(report, kernel):
    import torch

    report["framework"] = "pytorch"
    report["framework_version"] = torch.__version__
    report["built_cuda"] = torch.version.cuda
    cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
    report["built_cudnn"] = _cudnn_text(cudnn)
    report["cuda_available"] = bool(torch.cuda.is_available())
    report["device_count"] = torch.cuda.device_count() if report["cuda_available"] else 0
    if hasattr(torch.cuda, "get_arch_list"):
        report["arch_list"] = list(torch.cuda.get_arch_list())
    if kernel and report["cuda_available"]:
        x = torch.arange(1024, dtype=torch.float32, device="cuda")
        report["kernel_result"] = float((x * 2).sum().item())
        report["kernel_expected"] = float(1023 * 1024)
        report["device_name"] = torch.cuda.get_device_name(0)


def probe_tensorflow(report, kernel):
    import tensorflow as tf

    info = tf.sysconfig.get_build_info()
    gpus = tf.config.list_physical_devices("GPU")
    report["framework"] = "tensorflow"
    report["framework_version"] = tf.__version__
    report["built_cuda"] = info.get("cuda_version")
    report["built_cudnn"] = info.get("cudnn_version")
    report["cuda_available"] = bool(gpus)
    report["device_count"] = len(gpus)
    if kernel and gpus:
        with tf.device("/GPU:0"):
            x = tf.range(1024, dtype=tf.float32)
            report["kernel_result"] = float(tf.reduce_sum(x * 2).numpy())
        report["kernel_expected"] = float(1023 * 1024)


PROBES = {"pytorch": ("torch", probe_torch), "tensorflow": ("tensorflow", probe_tensorflow)}


def main(argv):
    kernel = "--kernel" in argv
    wanted = [a for a in argv if not a.startswith("--")]
    report = {
        "python_version": "%d.%d.%d" % sys.version_info[:3],
        "python_executable": sys.executable,
        "machine": platform.machine(),
        "errors": [],
    }
    for name in wanted or list(PROBES):
        module, probe = PROBES[name]
        try:
            probe(report, kernel)
            break
        except ImportError as exc:
            report["errors"].append("%s: cannot import %s: %s" % (name, module, exc))
        except Exception:  # the probe must always print its report
            report["errors"].append("%s: %s" % (name, traceback.format_exc(limit=3)))
            break
    sys.stdout.write(MARKER + json.dumps(report, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
