"""vGPU guests: the licence each vGPU holds, the licence client that gets it, and whether the
guest driver's vGPU release runs on the host's vGPU Manager.

Sources: NVIDIA Virtual GPU Client Licensing User Guide (licensed products, how licensing is
enforced, configuring a licensed client on Linux: nvidia-gridd, the client configuration token
in /etc/nvidia/ClientConfigToken/, /etc/nvidia/gridd.conf); the vGPU release notes,
"Compatibility Requirements for the NVIDIA vGPU Manager and Guest VM Driver" (the rule is
matrix/queries.vgpu_manager_runs_guest); the release of each branch is `vgpu_release` of
`[[driver_branch]]` in the matrix. No vGPU guest or licence server was available to record
here: the fixtures follow NVML's struct and nvidia-smi's printed block.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from gpudoctor.checks.base import Intent, finding, group_by_gpu, unknown_or_na
from gpudoctor.facts_view import live_gpus
from gpudoctor.findings import ERROR, INFO, NA, OK, UNKNOWN, WARN, Finding
from gpudoctor.matrix.queries import driver_branch_of, vgpu_manager_runs_guest

if TYPE_CHECKING:
    from gpudoctor.facts import GpuFacts, HostFacts
    from gpudoctor.matrix.model import DriverBranch, Matrix

# A lease the client has not renewed this close to its expiry is worth a look.
EXPIRY_WARN = timedelta(days=3)
GUIDE = "NVIDIA Virtual GPU Client Licensing User Guide"
CLIENT_FIX = (
    "install and start the licence client: `sudo systemctl enable --now nvidia-gridd`; copy the "
    "client configuration token from your NVIDIA License System instance to "
    "/etc/nvidia/ClientConfigToken/ (mode 744); set FeatureType in /etc/nvidia/gridd.conf "
    "(1 vGPU, 2 vWS, 4 vCS...); restart nvidia-gridd and confirm with "
    "`nvidia-smi -q | grep -A2 'vGPU Software Licensed Product'`"
)
UNLICENSED_STATES = ("unlicensed", "unlicensed_restricted", "unlicensed_unrestricted")


def guests(facts: HostFacts) -> list[GpuFacts]:
    return [g for g in live_gpus(facts) if g.virtualization_mode == "vgpu"]


def check_vgpu_license(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    gpus = live_gpus(facts)
    if not gpus:
        return [finding("vgpu-license", NA, "no GPU visible to NVML")]
    return group_by_gpu("vgpu-license", ((g.index, license_of(facts, g)) for g in gpus))


def license_of(facts: HostFacts, g: GpuFacts) -> Finding:
    mode, lic = g.virtualization_mode, g.vgpu_license
    if mode not in ("vgpu", "passthrough"):
        if mode is None and lic is None:
            sev, why = unknown_or_na(facts, "virtualization_mode")
            return finding("vgpu-license", sev, f"virtualization mode {why}")
        return finding("vgpu-license", NA, "not a VM guest's GPU: no vGPU software licence")
    if lic is None:
        return _not_reported(facts, mode)
    ev: list[tuple[str, object]] = [
        ("license_state", lic.state),
        ("product", lic.product),
        ("expiry", lic.expiry),
    ]
    product = lic.product or "vGPU software"
    if lic.state in UNLICENSED_STATES:
        restricted = {
            "unlicensed_restricted": " (restricted: performance already capped)",
            "unlicensed_unrestricted": " (unrestricted: still at full capability, for now)",
        }.get(lic.state, "")
        return finding(
            "vgpu-license",
            ERROR,
            f"{product} is not licensed{restricted}",
            detail=f"An unlicensed vGPU runs at full capability at first; the longer it stays "
            f"unlicensed, the more its performance and functionality are restricted, until a "
            f"licence is acquired ({GUIDE}, 'How NVIDIA vGPU Software Licensing Is Enforced').",
            fix=CLIENT_FIX,
            evidence=ev,
        )
    if lic.state != "licensed":
        return finding("vgpu-license", UNKNOWN, "vGPU licence state unknown", evidence=ev)
    return _expiry(facts, product, lic.expiry, ev)


def _not_reported(facts: HostFacts, mode: str) -> Finding:
    if mode == "passthrough":
        return finding("vgpu-license", NA, "passthrough GPU without vGPU software licensing")
    sev, why = unknown_or_na(facts, "vgpu_license")
    if sev is NA:
        sev, why = UNKNOWN, "not reported"
    return finding("vgpu-license", sev, f"vGPU licence state {why}", fix=CLIENT_FIX)


def _expiry(
    facts: HostFacts, product: str, expiry: str | None, ev: list[tuple[str, object]]
) -> Finding:
    if expiry in (None, "permanent"):
        until = "permanently" if expiry else "(expiry not reported)"
        return finding("vgpu-license", OK, f"licensed: {product} {until}", evidence=ev)
    ends, now = _when(expiry), _when(facts.collected_at)
    if ends is None or now is None:
        return finding("vgpu-license", OK, f"licensed: {product} until {expiry}", evidence=ev)
    if ends <= now:
        return finding(
            "vgpu-license",
            WARN,
            f"{product} licence expired {expiry}",
            detail="The lease was not renewed: the licence client lost its licence server, "
            "and the vGPU will be restricted as an unlicensed one.",
            fix="check the licence client's log (`journalctl -u nvidia-gridd`) and that the "
            "licence server is reachable; then " + CLIENT_FIX,
            evidence=ev,
        )
    if ends - now <= EXPIRY_WARN:
        return finding(
            "vgpu-license",
            WARN,
            f"{product} licence expires {expiry}, within {EXPIRY_WARN.days} days",
            detail="The licence client renews its lease before it expires; one this close to "
            "expiry has not been renewed yet.",
            fix="check `journalctl -u nvidia-gridd` for renewal errors and that the licence "
            "server is reachable",
            evidence=ev,
        )
    return finding("vgpu-license", OK, f"licensed: {product} until {expiry}", evidence=ev)


def _when(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def check_vgpu_license_client(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    if not guests(facts):
        return [finding("vgpu-license-client", NA, "not a vGPU guest")]
    client = facts.platform.vgpu_client
    ev = [("gridd", client.gridd), ("tokens", client.tokens), ("gridd_conf", client.gridd_conf)]
    if client.gridd is None:
        return [
            finding(
                "vgpu-license-client",
                UNKNOWN,
                "licence client not examined (a pasted report does not show it)",
                fix="run `gpudoctor check` in the guest",
            )
        ]
    if client.gridd == "":
        return [
            finding(
                "vgpu-license-client",
                WARN,
                "vGPU guest without the licence client (nvidia-gridd)",
                detail="Nothing in this guest can acquire a licence: the vGPU will be "
                f"restricted once unlicensed ({GUIDE}).",
                fix="install the NVIDIA vGPU guest driver package, which brings nvidia-gridd; "
                "then " + CLIENT_FIX,
                evidence=ev,
            )
        ]
    if client.tokens == 0:
        return [
            finding(
                "vgpu-license-client",
                WARN,
                "no client configuration token in /etc/nvidia/ClientConfigToken/",
                detail="nvidia-gridd finds its licence server through the token (NVIDIA License "
                "System); without one it cannot acquire a licence.",
                fix=CLIENT_FIX,
                evidence=ev,
            )
        ]
    return [finding("vgpu-license-client", OK, "licence client installed", evidence=ev)]


def check_vgpu_release(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    if not guests(facts):
        return [finding("vgpu-release", NA, "not a vGPU guest")]

    guest_version = facts.nvml.driver_version or facts.kernel.nvidia_module_version
    if guest_version is None:
        return [finding("vgpu-release", UNKNOWN, "guest driver version not known")]
    host_version = next(
        (
            d.vgpu_host_driver_version
            for d in facts.kernel.pci_devices
            if d.vgpu_host_driver_version
        ),
        None,
    )
    ev: list[tuple[str, object]] = [
        ("guest_driver", guest_version),
        ("host_vgpu_manager", host_version),
    ]
    guest = driver_branch_of(matrix, guest_version)
    if guest is None or guest.vgpu_release is None:
        return [
            finding(
                "vgpu-release",
                INFO,
                f"guest driver {guest_version}: its vGPU release is not in the matrix",
                fix=_by_hand(host_version),
                evidence=ev,
            )
        ]
    named = f"vGPU {guest.vgpu_release} (R{guest.branch})"
    if host_version is None:
        return [
            finding(
                "vgpu-release",
                INFO,
                f"guest driver {guest_version} is {named}; the host's vGPU Manager is not "
                "visible here",
                fix=_by_hand(None),
                evidence=ev,
            )
        ]
    host = driver_branch_of(matrix, host_version)
    if host is None or host.vgpu_release is None:
        return [
            finding(
                "vgpu-release",
                INFO,
                f"guest {named} on vGPU Manager {host_version}, whose release the matrix lacks",
                fix=_by_hand(host_version),
                evidence=ev,
            )
        ]
    return [_judge(matrix, guest, host, versions=(guest_version, host_version), ev=ev)]


def _judge(
    matrix: Matrix,
    guest: DriverBranch,
    host: DriverBranch,
    *,
    versions: tuple[str, str],
    ev: list[tuple[str, object]],
) -> Finding:
    guest_version, host_version = versions

    pair = (
        f"guest driver {guest_version} (vGPU {guest.vgpu_release}) on vGPU Manager "
        f"{host_version} (vGPU {host.vgpu_release})"
    )
    if vgpu_manager_runs_guest(matrix, host, guest):
        return finding("vgpu-release", OK, f"{pair}: compatible", evidence=ev)
    return finding(
        "vgpu-release",
        ERROR,
        f"{pair}: not a supported combination",
        detail="NVIDIA supports a guest driver from the manager's own release, from the "
        "previous major release branch, or (long-term support managers) from the previous "
        "long-term support branch; an incompatible guest driver fails to load the vGPU.",
        fix=f"install the guest driver of vGPU {host.vgpu_release} (R{host.branch}), the "
        "release of the host's vGPU Manager, from the NVIDIA Licensing Portal",
        evidence=ev,
    )


def _by_hand(host_version: str | None) -> str:
    host = (
        f"the host's vGPU Manager is {host_version}"
        if host_version
        else "on the hypervisor host, `nvidia-smi` shows the vGPU Manager's driver version"
    )
    return (
        f"compare by hand: {host}; the guest driver must be from the same vGPU release, or "
        "from the previous major release branch, or (long-term support manager) from the "
        "previous long-term support branch"
    )


# By area, as their codes are (checks.REGISTRY registers each tuple in its area): the licence is
# the GPU's, the licence client the platform's, the guest/host release rule the driver's.
CHECKS = (check_vgpu_license,)
PLATFORM_CHECKS = (check_vgpu_license_client,)
DRIVER_CHECKS = (check_vgpu_release,)
