"""The NVIDIA device plugin's, GPU feature discovery's, its MPS control daemon's and its
config-manager's own failure lines (klog, as their pods print them): each is named by its entry
with the line's values in the cause and fix, a near miss (the normal line beside it) is not, and
the plugin's healthy start-up log raises nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, warn_or_error

Read = Callable[[str], HostFacts]

_E = "E0412 10:11:12.123456       1 "
_W = "W0412 10:11:12.123456       1 "
_I = "I0412 10:11:12.123456       1 "
_START = _E + "main.go:198] error starting plugins: "
_PARSE = (
    _START + "unable to load config: unable to finalize config: unable to parse config file: "
    "error parsing config file: unmarshal error: error unmarshaling JSON: while decoding JSON: "
)
_UUID = "GPU-8d3c2a1e-5f0b-2b7c-9e41-0c7a5d6b2f11"


def _codes(facts: HostFacts) -> list[str]:
    return [e.code for e in facts.report.errors] if facts.report else []


@pytest.mark.parametrize(
    ("line", "code", "severity", "carried"),
    [
        (
            _START + "unable to load config: unable to validate flags: invalid "
            "--device-list-strategy option: invalid strategy: cdi",
            "device-plugin-option-invalid",
            Severity.ERROR,
            "invalid strategy: cdi",
        ),
        (
            _START + "unable to load config: unable to validate flags: unknown MIG strategy: mix",
            "device-plugin-option-invalid",
            Severity.ERROR,
            "unknown MIG strategy: mix",
        ),
        (
            _START + "unable to load config: unable to validate flags: invalid "
            "--device-discovery-strategy option wsl",
            "device-plugin-option-invalid",
            Severity.ERROR,
            "option wsl",
        ),
        (
            _START + "unable to load config: unable to validate flags: CDI --device-list-strategy "
            "options are only supported on NVML-based systems",
            "device-plugin-cdi-needs-nvml",
            Severity.ERROR,
            "",
        ),
        (
            _START + "unable to load config: unable to validate flags: using --mig-strategy=mixed "
            "is not supported with MPS",
            "device-plugin-mps-with-mig",
            Severity.ERROR,
            "",
        ),
        (
            _W + "manager.go:94] MPS sharing is not supported for MIG devices; skipping daemon "
            "creation",
            "device-plugin-mps-with-mig",
            Severity.ERROR,
            "",
        ),
        (
            _PARSE + "number of replicas must be >= 2",
            "device-plugin-sharing-config-invalid",
            Severity.ERROR,
            "number of replicas must be >= 2",
        ),
        (
            _PARSE + "devices set as 'some' but the only valid string input is 'all'",
            "device-plugin-sharing-config-invalid",
            Severity.ERROR,
            "devices set as 'some'",
        ),
        (
            _START + "unable to load config: unable to finalize config: unable to parse config "
            "file: error parsing config file: unmarshal error: error converting YAML to JSON: "
            "yaml: line 7: did not find expected key",
            "device-plugin-config-file-invalid",
            Severity.ERROR,
            "yaml: line 7",
        ),
        (
            _START + "unable to load config: unable to finalize config: unable to parse config "
            "file: error parsing config file: unknown version: v2",
            "device-plugin-config-file-invalid",
            Severity.ERROR,
            "unknown version: v2",
        ),
        (
            _START + "error getting plugins: unable to create plugins: failed to construct "
            "resource managers: error building device map: error building device map from "
            "config.resources: all devices on the node must be configured with the same "
            "migEnabled value",
            "device-plugin-mig-config",
            Severity.ERROR,
            "",
        ),
        (
            _W + "mig-strategy.go:245] Invalid configuration detected for mig-strategy=single: "
            "at least one MIG device is enabled but empty",
            "device-plugin-mig-config",
            Severity.ERROR,
            "",
        ),
        (
            _W + "device_map.go:174] device 3 has no MIG devices configured",
            "device-plugin-mig-gpu-empty",
            Severity.WARN,
            "GPU 3",
        ),
        (
            _E + "server.go:146] Could not register device plugin: rpc error: code = Unavailable "
            'desc = connection error: desc = "transport: Error while dialing: dial unix '
            '/var/lib/kubelet/device-plugins/kubelet.sock: connect: no such file or directory"',
            "device-plugin-kubelet-registration",
            Severity.ERROR,
            "",
        ),
        (
            _E + "server.go:138] Could not start device plugin for 'nvidia.com/gpu.shared': "
            "listen unix /var/lib/kubelet/device-plugins/nvidia-gpu.sock: bind: read-only file "
            "system",
            "device-plugin-serve-failed",
            Severity.ERROR,
            "nvidia.com/gpu.shared",
        ),
        (
            "F0412 10:11:12.123456       1 server.go:195] GRPC server for 'nvidia.com/gpu' has "
            "repeatedly crashed recently. Quitting",
            "device-plugin-serve-failed",
            Severity.ERROR,
            "nvidia.com/gpu",
        ),
        (
            _I + "health.go:126] Error waiting for event: Unknown Error; Marking all devices as "
            "unhealthy",
            "device-plugin-health-unhealthy",
            Severity.ERROR,
            "",
        ),
        (
            _I + f"server.go:279] 'nvidia.com/gpu' device marked unhealthy: {_UUID}",
            "device-plugin-health-unhealthy",
            Severity.ERROR,
            "",
        ),
        (
            _E + "server.go:155] Failed to start health check: failed to create event set: Not "
            "Supported; continuing with health checks disabled",
            "device-plugin-health-check-disabled",
            Severity.WARN,
            "",
        ),
        (
            _START + "error getting plugins: unable to create cdi spec file: failed to save CDI "
            "spec: failed to write spec: open /var/run/cdi/k8s.device-plugin.nvidia.com-gpu.json: "
            "read-only file system",
            "device-plugin-cdi-spec-failed",
            Severity.ERROR,
            "read-only file system",
        ),
        (
            _E + "main.go:212] Failed to start MPS daemon: error setting compute mode "
            "EXCLUSIVE_PROCESS: error running nvidia-smi: exit status 2",
            "device-plugin-mps-daemon-start",
            Severity.ERROR,
            "EXCLUSIVE_PROCESS",
        ),
        (
            _E + "main.go:127] failed to get NodeFeature object: the server could not find the "
            "requested resource",
            "gfd-node-feature-api",
            Severity.ERROR,
            "",
        ),
        (
            _E + "main.go:127] error atomically writing file "
            "'/etc/kubernetes/node-feature-discovery/features.d/gfd': open "
            "/etc/kubernetes/node-feature-discovery/features.d/.gfd123: no such file or directory",
            "gfd-label-file-unwritable",
            Severity.ERROR,
            "/etc/kubernetes/node-feature-discovery/features.d/gfd",
        ),
        (
            _W + 'rm.go:121] mig-strategy="mixed" is only supported with NVML',
            "device-plugin-mig-mixed-no-nvml",
            Severity.WARN,
            "",
        ),
        (
            _W + "main.go:278] No labels generated from any source",
            "gfd-no-labels",
            Severity.WARN,
            "",
        ),
        # the older releases' wording of the same failures
        (
            "2021/03/05 10:12:44 error creating MIG strategy: Unknown strategy: mix",
            "device-plugin-option-invalid",
            Severity.ERROR,
            "Unknown strategy: mix",
        ),
        (
            "2020/06/02 08:01:12 Unexpected error: For mig.strategy=single all devices on the node "
            "must all be configured with the same migEnabled value",
            "device-plugin-mig-config",
            Severity.ERROR,
            "",
        ),
        (
            "2020/06/02 08:01:12 Error writing file "
            "'/etc/kubernetes/node-feature-discovery/features.d/gfd': open "
            "/etc/kubernetes/node-feature-discovery/features.d/gfd: read-only file system",
            "gfd-label-file-unwritable",
            Severity.ERROR,
            "features.d/gfd",
        ),
        (
            f"2021/03/05 10:12:44 Warning: {_UUID} is too old to support healthchecking: Not "
            "Supported. Marking it unhealthy.",
            "device-plugin-health-unhealthy",
            Severity.ERROR,
            "",
        ),
        # v0.13 and v0.14 print NVML's return code as its number
        (
            _E + "factory.go:77] Failed to initialize NVML: 12.",
            "device-plugin-no-nvml",
            Severity.ERROR,
            "",
        ),
        (
            _START + "error creating plugin manager: unable to create plugin manager: nvml init "
            "failed: 9",
            "nvml-driver-not-loaded",
            Severity.ERROR,
            "",
        ),
        # (the line is the driver-library-mismatch check's evidence: that check is the error)
        (
            _W + "factory.go:85] nvml init failed: 18",
            "driver-library-mismatch",
            Severity.INFO,
            "",
        ),
        (
            _E + "main.go:83] error starting plugins: error getting daemons: invalid MPS "
            "configuration: invalid device maximum allowed replicas exceeded: 20 > 16",
            "device-plugin-mps-replicas-exceeded",
            Severity.ERROR,
            "16 or fewer",
        ),
        (
            "error mounting /mps/shm as tmpfs: exit status 32",
            "device-plugin-mps-daemon-start",
            Severity.ERROR,
            "error mounting /mps/shm as tmpfs",
        ),
        (
            _E + "main.go:209] specified config a100-mig does not exist",
            "device-plugin-config-label-unknown",
            Severity.ERROR,
            "a100-mig",
        ),
    ],
)
def test_line_is_named_with_its_values(
    read: Read, matrix: Matrix, line: str, code: str, *, severity: Severity, carried: str
) -> None:
    assert _codes(read(line + "\n")) == [code]
    found = error_lines(findings_of(read, matrix, line + "\n"), code)
    assert len(found) == 1
    assert found[0].severity == severity
    if carried:
        assert carried in found[0].detail + found[0].fix


@pytest.mark.parametrize(
    ("line", "not_code"),
    [
        # the normal lines beside each failure
        (
            _I + "server.go:142] Starting to serve 'nvidia.com/gpu' on "
            "/var/lib/kubelet/device-plugins/nvidia-gpu.sock",
            "device-plugin-serve-failed",
        ),
        (
            _I + "server.go:149] Registered device plugin for 'nvidia.com/gpu' with Kubelet",
            "device-plugin-kubelet-registration",
        ),
        (
            _I + "health.go:64] Ignoring the following XIDs for health checks: map[13:true "
            "31:true 43:true 45:true 68:true 109:true]",
            "device-plugin-health-unhealthy",
        ),
        (
            _I + 'daemon.go:97] "Staring MPS daemon" resource="nvidia.com/gpu"',
            "device-plugin-mps-daemon-start",
        ),
        (
            _I + "output.go:89] Writing labels to output file "
            "/etc/kubernetes/node-feature-discovery/features.d/gfd",
            "gfd-label-file-unwritable",
        ),
        (
            _I + "main.go:320] Successfully updated to config: a100-mig",
            "device-plugin-config-label-unknown",
        ),
        # a number that is not the return code alone
        ("Failed to initialize NVML: 120 devices", "device-plugin-no-nvml"),
        # a file other than node feature discovery's features.d
        ("Error writing file '/tmp/out.txt': no space left on device", "gfd-label-file-unwritable"),
        # the same words outside the plugin's config parsing
        ("no resources specified", "device-plugin-sharing-config-invalid"),
        # the error chain names its MIG-config entry, not the mixed strategy's warning
        (
            "invalid MIG configuration: at least one device with migEnabled=true was not "
            "configured correctly: device 0 has no MIG devices configured",
            "device-plugin-mig-gpu-empty",
        ),
    ],
)
def test_near_miss_is_not_named(read: Read, line: str, not_code: str) -> None:
    try:
        codes = _codes(read(line + "\n"))
    except FactsError:
        codes = []
    assert not_code not in codes


_SOCKET = "/var/lib/kubelet/device-plugins/nvidia-gpu.sock"
_XIDS = "map[13:true 31:true 43:true 45:true 68:true 109:true]"

# The plugin's INFO lines at a healthy start (cmd/nvidia-device-plugin/main.go,
# internal/plugin/server.go, internal/rm/health.go), its config JSON included.
_HEALTHY_START = f"""\
{_I}main.go:269] "Starting NVIDIA Device Plugin" version=<
	3c378193-amd64
	commit: 3c378193fcebf6e955f0d65bd6f2aeed099ad8ea
 >
{_I}main.go:272] Starting FS watcher for /var/lib/kubelet/device-plugins
{_I}main.go:279] Starting OS watcher.
{_I}main.go:294] Starting Plugins.
{_I}main.go:351] Loading configuration.
{_I}main.go:377] Updating config with default resource matching patterns.
{_I}main.go:388]
Running with config:
{{
  "version": "v1",
  "flags": {{
    "migStrategy": "none",
    "failOnInitError": true,
    "mpsRoot": "",
    "nvidiaDriverRoot": "/",
    "gdsEnabled": false,
    "mofedEnabled": false,
    "useNodeFeatureAPI": null,
    "deviceDiscoveryStrategy": "auto",
    "plugin": {{
      "passDeviceSpecs": false,
      "deviceListStrategy": [
        "envvar"
      ],
      "deviceIDStrategy": "uuid",
      "cdiAnnotationPrefix": "cdi.k8s.io/",
      "nvidiaCTKPath": "/usr/bin/nvidia-ctk",
      "containerDriverRoot": "/driver-root"
    }}
  }},
  "resources": {{
    "gpus": [
      {{
        "pattern": "*",
        "name": "nvidia.com/gpu"
      }}
    ]
  }},
  "sharing": {{
    "timeSlicing": {{}}
  }}
}}
{_I}main.go:391] Retrieving plugins.
{_I}factory.go:96] Using requested device discovery strategy: auto
{_I}factory.go:101] Detected platform: nvml
{_I}server.go:198] Starting GRPC server for 'nvidia.com/gpu'
{_I}server.go:142] Starting to serve 'nvidia.com/gpu' on {_SOCKET}
{_I}server.go:149] Registered device plugin for 'nvidia.com/gpu' with Kubelet
{_I}health.go:64] Ignoring the following XIDs for health checks: {_XIDS}
"""


def test_healthy_device_plugin_start_raises_nothing(read: Read, matrix: Matrix) -> None:
    # beside the node's GPU list, so that the paste as a whole is read
    text = f"GPU 0: NVIDIA A100-SXM4-40GB (UUID: {_UUID})\n" + _HEALTHY_START
    assert not [c for c in _codes(read(text)) if "device-plugin" in c or c.startswith("gfd-")]
    assert warn_or_error(findings_of(read, matrix, text)) == []
