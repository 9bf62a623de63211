"""Jetson read from text: the L4T and JetPack releases (/etc/nv_tegra_release, dpkg, prose),
tegrastats, the tegra kernel, L4T's power tools and the board."""

from __future__ import annotations

import re

from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.facts_scan.rule import _Rule, _rx


def _l4t(m: re.Match[str], d: Draft) -> bool:
    put(d.platform, "l4t_release", f"{m.group('r')}.{m.group('a')}.{m.group('b') or '0'}")
    put(d.platform, "machine", "aarch64")
    return True


# The words that say a line is about a Jetson (its module names, its OS, its SDK).
_JETSON_LINE = _rx(r"\b(?:jetson|jetpack|l4t|tegra|orin|xavier|nano|tx[12]|agx)\b")


def _bare_l4t(m: re.Match[str], d: Draft) -> bool:
    """An L4T release without "L4T" before it ("r32.6 on my Jetson Nano"): read only where the
    line names the Jetson, so a release number of anything else is not taken for it."""
    if _JETSON_LINE.search(m.string) is None:
        return False
    if _JETSON_APT_REPO.search(m.string):
        # the apt branch ("jetson/common r35.4 main", apt show's "APT-Sources: ...
        # r35.4/main") names the L4T major.minor every release of the branch shares (35.4
        # is L4T 35.4.1): not a release of its own, which would hide the host's from the
        # JetPack table
        put(d.platform, "machine", "aarch64")
        d.note(f"the Jetson apt repository of L4T R{m.group('r')}.{m.group('a')}")
        _jetson_named(m, d)
        return True
    return _l4t(m, d)


# NVIDIA's apt repository of a Jetson: its branches are named by L4T major.minor
_JETSON_APT_REPO = _rx(r"\brepo\.download\.nvidia\.com/jetson/")


def _short_jetpack(m: re.Match[str], d: Draft) -> bool:
    """ "JP 5.1.2": two letters that mean JetPack only on a line that names the Jetson."""
    if _JETSON_LINE.search(m.string) is None:
        return False
    return _jetpack(m, d)


def _jetpack(m: re.Match[str], d: Draft) -> bool:
    """A JetPack release ("JetPack 5.1.2", "nvidia-jetpack 6.0+b106"): the matrix's
    `[[jetpack]]` table gives its L4T and CUDA (checks/jetson.with_jetpack)."""
    put(d.platform, "jetpack_release", m.group("v"))  # not the machine: a host flashing one
    d.named.append(("jetson", d.scan_line))  # (SDK Manager) names its JetPack too
    return True


def _tegrastats(m: re.Match[str], d: Draft) -> bool:
    """A tegrastats line: only a Jetson prints it, so the host is one (and aarch64)."""
    put(d.platform, "machine", "aarch64")
    _jetson_named(m, d)
    return True


def _tegra_kernel(m: re.Match[str], d: Draft) -> bool:
    put(d.kernel, "release", m.group("release"))
    return True


def _l4t_power_tool(m: re.Match[str], d: Draft) -> bool:
    """L4T's own clock and power tools, which exist only on a Jetson: `jetson_clocks --show`
    opens with "SOC family:tegra234  Machine:<the board's device-tree model>" (jetson_clocks.sh),
    `nvpmodel -q` prints "NV Power Mode: MAXN", and jtop's stats name the same two ("nvp model,
    MAXN", "jetson_clocks, OFF"). The host is a Jetson (aarch64)."""
    put(d.platform, "machine", "aarch64")
    if m.group("soc"):
        d.note(f"jetson_clocks: SoC {m.group('soc').lower()}, {m.group('machine').strip()}")
    _jetson_named(m, d)
    return True


def _tegra_board(m: re.Match[str], d: Draft) -> bool:
    """What only a 64-bit Jetson shows: its device tree's compatible string (`cat
    /proc/device-tree/compatible`: "nvidia,p3768-0000+p3767-0005nvidia,p3767-0005nvidia,tegra234",
    the NUL-separated names run together) names the Tegra SoC, and a listing of its device nodes
    (`ls /dev/nv*`, `ls -l`) shows the nodes of L4T's GPU and memory drivers (/dev/nvhost-*,
    /dev/nvmap) that no discrete-GPU driver creates. The host is a Jetson (aarch64)."""
    put(d.platform, "machine", "aarch64")
    if m.group("soc"):
        d.note(f"device tree: SoC {m.group('soc').lower()}")
    _jetson_named(m, d)
    return True


def _jetson_named(m: re.Match[str], d: Draft) -> bool:
    """A Jetson named in prose: JetPack, a Jetson module, L4T, a "-tegra" kernel."""
    d.named.append(("jetson", d.scan_line))
    return False


RULES: tuple[_Rule, ...] = (
    _Rule(
        "release), revision",
        _rx(
            # /etc/nv_tegra_release opens with "# ", which a paste loses: GitHub renders the
            # line as a heading, and a copy of it has no "#"; "(release), REVISION:" says it
            r"(?:#\s{0,4})?\bR(?P<r>\d{2,3})\s{0,4}\(release\),\s{0,4}REVISION:\s{0,4}(?P<a>\d{1,3})\.(?P<b>\d{1,3})"
        ),
        _l4t,
    ),
    _Rule(
        "nvidia-l4t-core",
        # `dpkg -l`/`dpkg-query -W` ("nvidia-l4t-core   36.4.0-2024..."), `apt list`'s
        # "nvidia-l4t-core/stable,now 36.4.0-20240912212859 arm64 [installed]"
        _rx(
            r"\bnvidia-l4t-core(?::arm64)?(?:/[\w.-]{1,30},now)?\s{1,60}"
            r"(?P<r>\d{2,3})\.(?P<a>\d{1,3})\.(?P<b>\d{1,3})-"
        ),
        _l4t,
    ),
    _Rule(
        "jetpack",
        _rx(
            # prose runs the release on ("JetPack5.1.2") or brackets it ("JetPack (4.6)")
            # jetson-stats' environment names it too ("JETSON_JETPACK=4.6")
            # and `apt list`'s "nvidia-jetpack/stable,now 6.1+b123 arm64"
            r"(?:\bjetson_|\b)(?:nvidia-)?jetpack(?::arm64)?(?:/[\w.-]{1,30},now)?"
            r"[\s_:=(\[-]{0,60}(?:(?:sdk|version|release)\s{0,4}[:=]?\s{0,4})?v?"
            r"(?P<v>[3-9]\.\d{1,2}(?:\.\d{1,2})?)(?![\d.])"
        ),
        _jetpack,
    ),
    _Rule(
        "jp",
        # "JP 5.1.2", "JP6.0": JetPack's short name; not a path or host name ("/jp/v512")
        re.compile(r"(?<![\w./-])JP\s{0,2}v?(?P<v>[4-7]\.\d{1,2}(?:\.\d{1,2})?)(?![\w.])"),
        _short_jetpack,
    ),
    _Rule(
        "l4t",
        _rx(
            r"(?:\bjetson_|\b)L4T[\s_]{0,4}(?:version\s{0,4})?[:=]?\s{0,4}R?(?P<r>\d{2,3})\.(?P<a>\d{1,3})(?:\.(?P<b>\d{1,3}))?"
        ),
        _l4t,
    ),
    _Rule(
        # the L4T BSP's own file name, as NVIDIA publishes it: "Jetson_Linux_R35.4.1_aarch64.tbz2",
        # "Tegra186_Linux_R32.7.1_aarch64.tbz2" (Jetson Linux download pages)
        "_linux_r",
        _rx(r"\b(?:Jetson|Tegra\d{3})_Linux_R(?P<r>\d{2})\.(?P<a>\d{1,2})(?:\.(?P<b>\d{1,2}))?"),
        _l4t,
    ),
    _Rule(
        "r3",
        # an L4T release written alone ("r32.6", "R35.4.1"), as Jetson users name their host's,
        # only on a line that names the Jetson; an image tag's ("l4t-base:r32.7.1") is the
        # container's, not the host's (jetson_image reads it)
        _rx(r"(?<![\w.:/-])R(?P<r>3[2-9])\.(?P<a>\d{1,2})(?:\.(?P<b>\d{1,2}))?(?![\w.])"),
        _bare_l4t,
    ),
)


RULES_2: tuple[_Rule, ...] = (
    # tegrastats, L4T's load monitor: its GR3D_FREQ field is the Jetson's integrated GPU
    _Rule(
        "gr3d_freq",
        _rx(r"\bRAM \d{1,7}/\d{1,7}MB\b[^\n]{0,400}?\b(?P<name>GR3D_FREQ)\b"),
        _tegrastats,
    ),
    _Rule(
        # L4T's kernel release as any tool prints it (`uname -r`, jetson_release's "Release:",
        # collect_env's platform): "5.15.136-tegra"; not a package's version that runs on
        # ("5.15.148-tegra-36.4.0-2024...") or a headers package's name
        "-tegra",
        _rx(r"(?<![\w.-])(?P<release>\d\.\d{1,2}\.\d{1,3}-tegra)(?![\w-])"),
        _tegra_kernel,
    ),
    _Rule(
        ("soc family:", "nv power mode:", "nvp model, ", "jetson_clocks, "),
        _rx(
            r"^\s{0,4}SOC family:\s{0,2}(?P<soc>tegra\d{3})\s{1,4}Machine:\s{0,2}"
            r"(?P<machine>[^\n]{2,100})$"
            r"|^\s{0,4}NV Power Mode:\s{0,2}[\w.-]{1,30}\s{0,4}$"
            r"|^\s{0,4}(?:nvp model|jetson_clocks),\s{1,4}[\w.-]{1,30}\s{0,4}$"
        ),
        _l4t_power_tool,
    ),
    _Rule(
        # the device tree's compatible string of a 64-bit Jetson's SoC (tegra210: TX1 and
        # Nano, tegra186: TX2, tegra194: Xavier, tegra234: Orin, tegra264: Thor), and L4T's
        # device nodes in a listing of /dev (not a path quoted in an error message)
        ("nvidia,tegra", "/dev/nvhost-", "/dev/nvmap"),
        _rx(
            r"nvidia,(?P<soc>tegra(?:210|186|194|234|264))(?!\d)"
            r"|^\s{0,4}(?:[cl][rwx-]{9}[^\n]{5,120}?\s)?(?:/dev/nv[\w/-]{1,40}\s[^\n]{0,400}?)?"
            r"/dev/nv(?:host-[\w-]{2,30}|map)(?=\s|$)"
        ),
        _tegra_board,
    ),
    _Rule(
        ("tegra", "l4t"),
        _rx(r"\b\d\.\d{1,2}\.\d{1,3}-(?P<name>tegra)\b|\b(?P<l4t>l4t)\b"),
        _jetson_named,
    ),
)
