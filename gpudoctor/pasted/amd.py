"""The ROCm tools' output pasted into bug reports: `rocminfo` (its banner and HSA agents),
`rocm-smi` (`GPU[N] : Key: value` lines: -i, --showproductname), `amd-smi list` and
`amd-smi static` (`GPU: N` then indented `KEY: value` lines), and amd-smi's version banner.

Found anywhere in the paste by their own keys (a line shape): each GPU's gfx target, name, PCI
device id and address, the amdgpu module version and the ROCm version, written into the draft's
AMD part only as the text shows them. The tools cannot run here (no /dev/kfd): their layouts come
from public reports (tests/data/reports/ names each thread).
"""

from __future__ import annotations

import re

from gpudoctor.pasted.draft import Draft, put, unknown_value
from gpudoctor.pasted.scan import ascii_lower, lines_with

NAME = "amd"
DESCRIPTION = "`rocminfo`, `rocm-smi`, `amd-smi list` / `amd-smi static`"

# rocminfo: "ROCk module version 6.8.5 is loaded" (older: "ROCk module is loaded").
_ROCK = re.compile(r"ROCk module version (\d+(?:\.\d+){1,3}) is loaded")
# amd-smi version / usage banner: "... | ROCm version: 6.4.1 | amdgpu version: 6.10.5 | ..."
_SMI_ROCM = re.compile(r"ROCm version: (\d+(?:\.\d+){1,3})")
_SMI_AMDGPU = re.compile(r"amdgpu version: (\d+(?:\.\d+){1,3})")
_SMI_GPU = re.compile(r"^\s{0,8}GPU: (\d{1,4})\s*$")
_SMI_KEY = re.compile(r"^\s{2,16}([A-Z][A-Z_]{1,40}): {0,8}(.{0,200}?)\s*$")
_ROCM_SMI = re.compile(r"^GPU\[(\d{1,4})\]\s*: ([A-Za-z][A-Za-z ]{1,40}?): \s*(.{0,200}?)\s*$")
_AGENT = re.compile(r"^\s{0,4}Agent (\d{1,4})\s*$")
_AGENT_KEY = re.compile(r"^\s{1,6}([A-Z][A-Za-z. ]{1,30}?):\s+(.{0,200}?)\s*$")
_GFX = re.compile(r"\b(gfx[0-9a-f]{3,4})\b")
_HEX_ID = re.compile(r"0x([0-9a-fA-F]{4})\b")
_NEEDLES = (
    "rock module",
    "rocm version:",
    "gpu: ",
    "gpu[",
    "agent ",
    "name:",
    "marketing name:",
    "device type:",
    "chip id:",
    "market_name:",
    "target_graphics_version:",
    "device_id:",
    "bdf:",
    "node_id:",
    "version:",
)


def parse(text: str, draft: Draft) -> None:
    lines = lines_with(ascii_lower(text), text, _NEEDLES)
    state = _State()
    for _, raw in lines:
        line = raw.rstrip()
        _banner(line, draft)
        if _smi(line, draft, state) or _rocm_smi(line, draft) or _rocminfo(line, draft, state):
            continue
    if state.sections:
        for section in state.sections:
            draft.section(section)


class _State:
    def __init__(self) -> None:
        self.smi_gpu: int | None = None  # amd-smi's current "GPU: N"
        self.agent: dict[str, str] = {}  # rocminfo's current agent's keys
        self.agents = 0  # rocminfo GPU agents seen
        self.sections: list[str] = []

    def saw(self, name: str) -> None:
        if name not in self.sections:
            self.sections.append(name)


def _banner(line: str, draft: Draft) -> None:
    rock = _ROCK.search(line)
    if rock:  # rocminfo's first line: the loaded amdgpu module's version
        put(draft.amd, "amdgpu_version", rock.group(1))
        put(draft.amd, "amdgpu_loaded", True)
        draft.section("rocminfo")
    if "|" in line and "ROCm version:" in line:
        draft.section("amd-smi")
        rocm = _SMI_ROCM.search(line)
        if rocm:
            put(draft.amd, "rocm_version", rocm.group(1))
        amdgpu = _SMI_AMDGPU.search(line)
        if amdgpu:
            put(draft.amd, "amdgpu_version", amdgpu.group(1))
            put(draft.amd, "amdgpu_loaded", True)


def _smi(line: str, draft: Draft, state: _State) -> bool:
    """amd-smi list / static: "GPU: 0" then indented "KEY: value" lines."""
    header = _SMI_GPU.match(line)
    if header:
        state.smi_gpu = int(header.group(1))
        return True
    key = _SMI_KEY.match(line) if state.smi_gpu is not None else None
    if key is None:
        return False
    name, value = key.group(1), key.group(2)
    if unknown_value(value) or value.startswith("<"):
        return True
    gpu = draft.amd_gpu(state.smi_gpu)  # type: ignore[arg-type]
    state.saw("amd-smi")
    if name == "MARKET_NAME":
        put(gpu, "name", value)
    elif name == "TARGET_GRAPHICS_VERSION":
        _gfx(gpu, value)
    elif name == "DEVICE_ID":
        _device_id(gpu, value)
    elif name == "BDF":
        put(gpu, "bdf", value.lower())
    elif name == "NODE_ID" and value.isdecimal():
        put(gpu, "node", int(value))
    elif name == "VERSION" and re.fullmatch(r"\d+(\.\d+){1,3}", value):
        put(draft.amd, "amdgpu_version", value)  # static's DRIVER: VERSION
        put(draft.amd, "amdgpu_loaded", True)
    elif name == "OS_KERNEL_VERSION" and re.match(r"\d+\.\d+\.\d+", value):
        put(draft.kernel, "release", value)  # static's BOARD: the host's kernel release
    return True


def _rocm_smi(line: str, draft: Draft) -> bool:
    """rocm-smi: "GPU[0]  : Device Name:  AMD Instinct MI300X" (tabs in the original)."""
    found = _ROCM_SMI.match(line.replace("\t", " "))
    if found is None:
        return False
    index, key, value = int(found.group(1)), found.group(2).strip().lower(), found.group(3)
    if unknown_value(value):
        return True
    gpu = draft.amd_gpu(index)
    draft.section("rocm-smi")
    if key in ("device name", "card series", "card model") and not value.startswith("0x"):
        put(gpu, "name", value)
    elif key == "device id":
        _device_id(gpu, value)
    elif key == "gfx version":
        _gfx(gpu, value)
    return True


def _rocminfo(line: str, draft: Draft, state: _State) -> bool:
    """rocminfo's agents: a GPU agent's "Name: gfx942", "Marketing Name:", "Chip ID:"."""
    if _AGENT.match(line):
        state.agent = {}
        return True
    key = _AGENT_KEY.match(line)
    if key is None:
        return False
    name, value = key.group(1).strip().lower(), key.group(2)
    state.agent[name] = value
    if name == "device type" and value.strip().upper() == "GPU":
        _agent(state, draft)
    return True


def _agent(state: _State, draft: Draft) -> None:
    """A GPU agent is complete at its "Device Type: GPU" line (Name and Marketing Name come
    before it; Chip ID after, so it is read when the agent's block ends, see below)."""
    gfx = _GFX.search(state.agent.get("name", ""))
    if gfx is None:
        return
    state.saw("rocminfo")
    gpu = draft.amd_gpu(1000 + state.agents)  # agents have no GPU index: keep them apart
    state.agents += 1
    _gfx(gpu, gfx.group(1))
    marketing = state.agent.get("marketing name", "")
    if marketing and not unknown_value(marketing):
        put(gpu, "name", marketing)
    put(draft.amd, "kfd_present", True)  # rocminfo lists agents the KFD topology offers


def _gfx(gpu: dict[str, object], value: str) -> None:
    found = _GFX.search(value)
    if found:
        put(gpu, "gfx", found.group(1))


def _device_id(gpu: dict[str, object], value: str) -> None:
    found = _HEX_ID.search(value)
    if found:
        put(gpu, "device_id", "0x" + found.group(1).lower())
