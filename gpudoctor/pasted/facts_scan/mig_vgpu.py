"""MIG and vGPU read from text: MIG named (and said lost at a reboot), vGPU profiles, the
licence status and nvidia-gridd."""

from __future__ import annotations

import re

from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.facts_scan.rule import _Rule, _rx
from gpudoctor.pasted.smi_query import license_status


def _mig(m: re.Match[str], d: Draft) -> bool:
    if d.in_block(d.scan_line):  # nvidia-smi -q's "MIG Mode" field: its parser read the mode
        return False
    d.note("the text mentions MIG: at least one GPU is partitioned (or meant to be)")
    d.named.append(("mig", d.scan_line))
    return True


# Prose that the MIG instances went at a reboot, in any of the orders people write it ("after a
# reboot the MIG devices are gone", "MIG instances disappear after every reboot", "the MIG
# partitions, after a restart they were lost", "MIG devices do not persist across reboots",
# "after a reboot there are no MIG devices", "I have to recreate the MIG instances after every
# reboot", "after the reboot my MIGs are destroyed"), a reboot also said as a restart, a power
# cycle or a boot.
_REBOOT = r"\b(?:re-?boot|restart|power[- ]?cycl|boot)\w{0,3}\b"

_MIG_THINGS = (
    r"(?:\bMIG\b[^\n]{0,40}?\b(?:instances?|devices?|partitions?|slices?|configs?|"
    r"configuration|layout|GIs?)\b|\bMIGs\b)"
)

_GONE = (
    r"\b(?:(?:are|were|is|was|got|get|have been|had been) (?:all )?(?:gone|lost|removed|"
    r"deleted|wiped|cleared|reset)|disappear\w{0,3}|vanish\w{0,3}|destr(?:oy|oi)\w{0,3}|lost|"
    r"missing|not there|"
    r"no longer (?:there|exists?|present|available|listed|visible))\b"
)

_REDO = r"\b(?:have|has|had|need|needs) to (?:re-?create|re-?apply|re-?configure|redo|set up)\b"

_AT = r"\b(?:after|on|at|upon|across|every|each|with|following)\b[^\n]{0,12}?"

_MIG_LOST_AT_REBOOT = (
    rf"{_REBOOT}[^\n]{{0,80}}?{_MIG_THINGS}[^\n]{{0,30}}?{_GONE}"
    rf"|{_MIG_THINGS}[^\n]{{0,30}}?{_GONE}[^\n]{{0,40}}?{_AT}{_REBOOT}"
    rf"|{_MIG_THINGS}[^\n]{{0,60}}?{_AT}{_REBOOT}[^\n]{{0,40}}?{_GONE}"
    rf"|{_MIG_THINGS}[^\n]{{0,30}}?\b(?:do(?:es)?n[o']?t|not|never|won't|will not) "
    rf"(?:persist|survive|stay|remain)\w{{0,2}}\b[^\n]{{0,30}}?{_AT}{_REBOOT}"
    rf"|{_AT}{_REBOOT}[^\n]{{0,60}}?\b(?:no|zero) MIG (?:devices?|instances?)\b"
    rf"|{_REDO}[^\n]{{0,30}}?{_MIG_THINGS}[^\n]{{0,30}}?{_AT}{_REBOOT}"
    rf"|{_AT}{_REBOOT}[^\n]{{0,40}}?{_REDO}[^\n]{{0,30}}?{_MIG_THINGS}"
)


def _mig_lost_at_reboot(m: re.Match[str], d: Draft) -> bool:
    """Prose that the MIG instances went at a reboot: what the product does (MIG mode persists,
    the GPU and compute instances do not: MIG user guide), for the mig-mode check."""
    d.note("the text says the MIG instances are gone after a reboot")
    d.named.append(("mig-lost-at-reboot", d.scan_line))
    d.named.append(("mig", d.scan_line))
    return True


def _vgpu(m: re.Match[str], d: Draft) -> bool:
    if d.in_block(d.scan_line):  # "vGPU Software Licensed Product", "Host VGPU Mode": fields
        return False
    d.note("the text mentions vGPU: the GPU may be a virtual GPU in a VM")
    return True


def _license(m: re.Match[str], d: Draft) -> bool:
    """`nvidia-smi -q`'s "License Status : Unlicensed (Restricted)" quoted without its GPU
    block (`nvidia-smi -q | grep -i license`): a vGPU guest's GPU and its licence state."""
    state = license_status(m.group("state"))
    if state is None:
        return False
    gpu = d.gpu(0) if len(d.gpus) <= 1 else d.gpu(min(d.gpus))
    put(gpu, "_license_status", state)
    put(gpu, "virtualization_mode", "vgpu")
    return True


def _gridd(m: re.Match[str], d: Draft) -> bool:
    d.note("the text names nvidia-gridd, the vGPU guest's licence client: the GPU is a vGPU")
    return True


RULES: tuple[_Rule, ...] = (
    _Rule(
        "mig",
        # and the device plugin's MIG resources and strategy ("nvidia.com/mig-1g.10gb",
        # "mig.strategy=mixed"), "MIG enabled"
        _rx(
            r"\bMIG(?: mode| device| \dg\.\d{1,3}gb|-[0-9a-f]{8}| (?:is )?enabled\b)|"
            r"\bnvidia\.com/mig-\dg\.\d{1,3}gb\b|\bmig\.strategy\b"
        ),
        _mig,
    ),
    _Rule(  # "after a reboot the MIG devices are gone", "MIG instances lost on reboot"
        ("boot", "restart", "power"),
        _rx(_MIG_LOST_AT_REBOOT),
        _mig_lost_at_reboot,
    ),
    _Rule(  # the MIG capability files nvidia-container-cli lists
        "/mig/gi",
        _rx(r"/proc/driver/nvidia/capabilities/gpu\d{1,3}/mig/gi\d{1,3}"),
        _mig,
    ),
)


RULES_2: tuple[_Rule, ...] = (
    _Rule(
        ("vgpu", "grid "),
        _rx(r"\bvgpu\b|\bgrid [a-z]\d{1,3}-\d{1,2}[a-z]\b"),
        _vgpu,
    ),
    _Rule(
        "gridd",
        _rx(r"\bnvidia-gridd\b"),
        _gridd,
    ),
    _Rule(
        "license status",
        _rx(
            r"\blicen[cs]e status\s{0,40}(?::|=|\bis)\s{0,4}(?:set to\s{1,4})?(?P<state>(?:un)?"
            r"licensed\b(?:\s{0,2}\((?:restricted|unrestricted|expiry:[^)\n]{1,40})\))?)"
        ),
        _license,
    ),
)
