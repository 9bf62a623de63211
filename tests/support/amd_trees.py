"""Fake root trees of AMD hosts, written from the documented file formats, for probes/amd.py.

Formats: the KFD topology prints one `name value` line per property in
/sys/class/kfd/kfd/topology/nodes/N/properties (linux drivers/gpu/drm/amd/amdkfd/kfd_topology.c,
node_show; CPU nodes have gfx_target_version 0); the DRM card's `device` is a link to its PCI
function, whose `vendor`, `device`, `class` and `revision` files hold hex with a 0x prefix; the
ROCm installer writes /opt/rocm/.info/version ("6.3.1-48"); amdgpu-dkms adds
/sys/module/amdgpu/version. The property keys and their order follow a real MI325X node's file.
Device nodes are plain files here (no mknod without root): their mode is set with chmod and their
group is the test user's, which the tests name as `render` in the tree's /etc/group.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

AMD, NVIDIA, ASPEED = "0x1002", "0x10de", "0x1a03"

# Keys of a KFD GPU node's properties file in the kernel's order (values filled per GPU).
_GPU_KEYS = (
    "cpu_cores_count",
    "simd_count",
    "mem_banks_count",
    "caches_count",
    "io_links_count",
    "p2p_links_count",
    "max_waves_per_simd",
    "lds_size_in_kb",
    "gds_size_in_kb",
    "num_gws",
    "wave_front_size",
    "array_count",
    "simd_arrays_per_engine",
    "cu_per_simd_array",
    "simd_per_cu",
    "max_slots_scratch_cu",
    "gfx_target_version",
    "vendor_id",
    "device_id",
    "location_id",
    "domain",
    "drm_render_minor",
    "hive_id",
    "num_sdma_engines",
    "num_sdma_xgmi_engines",
    "num_sdma_queues_per_engine",
    "num_cp_queues",
    "max_engine_clk_fcompute",
    "local_mem_size",
    "fw_version",
    "capability",
    "sdma_fw_version",
    "max_engine_clk_ccompute",
    "num_xcc",
    "debug_prop",
    "unique_id",
)


@dataclass(frozen=True)
class Gpu:
    address: str  # "0000:0c:00.0"
    vendor: str = AMD
    device: str = "0x74a1"
    revision: str = "0x00"
    klass: str = "0x038000"  # display controller (Instinct); Radeon: 0x030000 (VGA)
    driver: str | None = "amdgpu"
    gfx_target_version: int = 90402
    simd_count: int = 1216
    ras: str | None = "ue: 0\nce: 0\n"  # device/ras/umc_err_count (Instinct: ECC memory)
    partition: str | None = None  # device/current_compute_partition (MI300 series)


@dataclass(frozen=True)
class Tree:
    gpus: tuple[Gpu, ...]
    cpu_nodes: int = 2
    rocm_version: str | None = "6.3.1-48"
    rocm_installs: tuple[str, ...] = ("rocm-6.3.1",)
    amdgpu_version: str | None = "6.10.5"
    kfd: bool = True
    kfd_mode: int | None = 0o660  # None: no /dev/kfd (a container started without it)
    render_mode: int = 0o660
    cdi: str | None = None  # text of /etc/cdi/amd.json
    extra: dict[str, str] = field(default_factory=dict)


def write_tree(root: Path, tree: Tree) -> Path:
    """Write `tree` under `root`; a display-class GPU of another vendor gets a card too (the
    probe must skip it), but only AMD GPUs get a KFD node and a render node."""
    files: dict[str, str] = {"etc/group": f"video:x:44:\nrender:x:{os.getgid()}:\n"}
    node = 0
    for _ in range(tree.cpu_nodes):
        files[f"sys/class/kfd/kfd/topology/nodes/{node}/properties"] = _cpu_properties()
        node += 1
    for gpu in tree.gpus:
        pci = f"sys/bus/pci/devices/{gpu.address}"
        files |= {
            f"{pci}/vendor": gpu.vendor + "\n",
            f"{pci}/device": gpu.device + "\n",
            f"{pci}/class": gpu.klass + "\n",
            f"{pci}/revision": gpu.revision + "\n",
            f"{pci}/uevent": f"DRIVER={gpu.driver or ''}\nPCI_SLOT_NAME={gpu.address}\n",
        }
        if gpu.ras is not None:
            files[f"{pci}/ras/umc_err_count"] = gpu.ras
        if gpu.partition is not None:
            files[f"{pci}/current_compute_partition"] = gpu.partition + "\n"
        if gpu.vendor != AMD:
            continue
        minor = 128 + node - tree.cpu_nodes
        files[f"sys/class/kfd/kfd/topology/nodes/{node}/properties"] = _gpu_properties(
            gpu, minor, bus_location(gpu.address)
        )
        files[f"dev/dri/renderD{minor}"] = ""
        node += 1
    if tree.rocm_version:
        files["opt/rocm/.info/version"] = tree.rocm_version + "\n"
    for name in tree.rocm_installs:
        files[f"opt/{name}/.info/version"] = (tree.rocm_version or "") + "\n"
    if tree.amdgpu_version:
        files["sys/module/amdgpu/version"] = tree.amdgpu_version + "\n"
    if tree.kfd_mode is not None:
        files["dev/kfd"] = ""
    if tree.cdi:
        files["etc/cdi/amd.json"] = tree.cdi
    files |= tree.extra
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "sys/module/amdgpu").mkdir(parents=True, exist_ok=True)
    if not tree.kfd:
        import shutil

        shutil.rmtree(root / "sys/class/kfd")
    for card, gpu in enumerate(tree.gpus):
        drm = root / f"sys/class/drm/card{card}"
        drm.mkdir(parents=True, exist_ok=True)
        os.symlink(f"../../../bus/pci/devices/{gpu.address}", drm / "device")
        (root / f"sys/class/drm/card{card}-DP-1").mkdir(exist_ok=True)  # a connector, not a card
        if gpu.driver:
            os.symlink(
                f"../../../../bus/pci/drivers/{gpu.driver}",
                root / f"sys/bus/pci/devices/{gpu.address}/driver",
            )
    if tree.kfd_mode is not None:
        os.chmod(root / "dev/kfd", tree.kfd_mode)
    for path in (root / "dev/dri").glob("renderD*"):
        os.chmod(path, tree.render_mode)
    return root


def bus_location(address: str) -> int:
    """KFD's location_id: (bus << 8) | (device << 3) | function."""
    bus, devfn = address.split(":")[1:]
    device, function = devfn.split(".")
    return (int(bus, 16) << 8) | (int(device, 16) << 3) | int(function)


def _cpu_properties() -> str:
    return "".join(
        f"{k} {v}\n"
        for k, v in (
            ("cpu_cores_count", 96),
            ("simd_count", 0),
            ("mem_banks_count", 1),
            ("gfx_target_version", 0),
            ("vendor_id", 0),
            ("device_id", 0),
            ("location_id", 0),
            ("drm_render_minor", 0),
        )
    )


def _gpu_properties(gpu: Gpu, minor: int, location: int) -> str:
    values = dict.fromkeys(_GPU_KEYS, 0)
    values |= {
        "simd_count": gpu.simd_count,
        "gfx_target_version": gpu.gfx_target_version,
        "vendor_id": int(AMD, 16),
        "device_id": int(gpu.device, 16),
        "location_id": location,
        "drm_render_minor": minor,
        "wave_front_size": 64 if gpu.gfx_target_version < 100000 else 32,
        "simd_per_cu": 4 if gpu.gfx_target_version < 100000 else 2,
    }
    return "".join(f"{k} {values[k]}\n" for k in _GPU_KEYS)


def instinct(n: int, device: str, gfx: int, simd: int, first_bus: int = 0x0C) -> tuple[Gpu, ...]:
    return tuple(
        Gpu(
            address=f"0000:{first_bus + 0x10 * i:02x}:00.0",
            device=device,
            gfx_target_version=gfx,
            simd_count=simd,
            partition="SPX",
        )
        for i in range(n)
    )


def mi250x(cards: int) -> tuple[Gpu, ...]:
    """MI250X: two GCDs (dies) per card, each its own PCI function, DRM card and KFD node."""
    return tuple(
        Gpu(
            address=f"0000:{0x29 + 0x20 * c + die:02x}:00.0",
            device="0x740c",
            revision="0x01",
            gfx_target_version=90010,
            simd_count=440,
        )
        for c in range(cards)
        for die in range(2)
    )


MI300X_NODE = Tree(
    gpus=(
        Gpu("0000:02:00.0", vendor=ASPEED, device="0x2000", klass="0x030000", ras=None),
        *instinct(8, "0x74a1", 90402, 1216),
    )
)
MI250X_NODE = Tree(
    gpus=mi250x(4), rocm_version="6.2.4-120", rocm_installs=("rocm-6.2.4",), amdgpu_version="6.8.5"
)
RX7900XTX_WORKSTATION = Tree(
    gpus=(
        Gpu(
            "0000:03:00.0",
            device="0x744c",
            revision="0xc8",
            klass="0x030000",
            gfx_target_version=110000,
            simd_count=192,
            ras=None,
        ),
    ),
    cpu_nodes=1,
    rocm_version=None,
    rocm_installs=("rocm-6.1.0",),
    amdgpu_version=None,
)
NVIDIA_AND_AMD = Tree(
    gpus=(
        Gpu(
            "0000:01:00.0",
            vendor=NVIDIA,
            device="0x2684",
            klass="0x030000",
            driver="nvidia",
            ras=None,
        ),
        Gpu(
            "0000:03:00.0",
            device="0x747e",
            revision="0xc8",
            klass="0x030000",
            gfx_target_version=110001,
            simd_count=120,
            ras=None,
        ),
    ),
    cpu_nodes=1,
)
# The recorded snapshot (tests/data/hosts) each tree stands for, and the environment it had.
RECORDED = {
    "amd-mi300x-8x": (MI300X_NODE, {}),
    "amd-mi250x-torch-cuda": (MI250X_NODE, {"HSA_OVERRIDE_GFX_VERSION": "9.0.10"}),
    "amd-rx7900xtx-workstation": (
        RX7900XTX_WORKSTATION,
        {"LD_LIBRARY_PATH": "/opt/rocm-6.1.0/lib"},
    ),
    "nvidia-and-amd": (NVIDIA_AND_AMD, {}),
}
