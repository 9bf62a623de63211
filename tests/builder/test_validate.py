"""builder/validate.py: every user value that reaches the Dockerfile or the context is checked."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpudoctor.builder import validate
from gpudoctor.errors import UsageError


@pytest.mark.parametrize(
    ("value", "normalised"),
    [
        ("numpy", "numpy"),
        ("numpy==1.26.4", "numpy==1.26.4"),
        ("numpy<2,>=1.24", "numpy<2,>=1.24"),
        ("tensorflow[and-cuda]==2.15.0", "tensorflow[and-cuda]==2.15.0"),
        ("Pillow~=10.0", "Pillow~=10.0"),
        ("numpy; python_version < '3.12'", 'numpy; python_version < "3.12"'),
        ('numpy>=1.26 ; sys_platform == "linux"', 'numpy>=1.26; sys_platform == "linux"'),
    ],
)
def test_pip_requirement_accepts_pep508_by_name(value: str, normalised: str) -> None:
    assert validate.pip_requirement(value) == normalised


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("numpy==1.0; rm -rf /", "PEP 508"),
        ("numpy==1.0 && curl evil", "plain requirement"),
        ("numpy$(id)", "plain requirement"),
        ("numpy`id`", "plain requirement"),
        ("numpy\n--index-url http://evil", "plain requirement"),
        ("--extra-index-url=http://evil", "plain requirement"),
        ("-e .", "plain requirement"),
        ("./local/path", "plain requirement"),
        ("/abs/path.whl", "plain requirement"),
        ("torch @ https://evil.example/torch.whl", "plain requirement"),
        ("torch@https://evil.example/torch.whl", "plain requirement"),
        ("numpy == 1.0", "plain requirement"),
        ("'numpy'", "plain requirement"),
        ("numpy; python_version < '3.12' and '$HOME' == ''", "marker"),
        ("numpy; os_name == 'a\\\\b'", "marker"),
        ("", "plain requirement"),
    ],
)
def test_pip_requirement_refuses_shell_urls_paths_and_options(value: str, why: str) -> None:
    with pytest.raises(UsageError) as info:
        validate.pip_requirement(value)
    assert why in info.value.message
    assert info.value.message.startswith("--pip ")
    assert "\n" not in info.value.message  # one clear line


@given(st.text(alphabet="abc=<>'\"`$;&|\\\n ()#{}*?!~", min_size=1, max_size=20))
def test_pip_requirement_never_lets_shell_characters_through_the_name(value: str) -> None:
    head = value.split(";", maxsplit=1)[0]
    try:
        validate.pip_requirement(value)
    except UsageError:
        return
    assert not set(head) & set("'\"`$&|\\\n ()#{}*?!")


@pytest.mark.parametrize(
    "value",
    [
        "nvidia/cuda:12.4.1-runtime-ubuntu22.04",
        "nvidia/cuda:12.4.1-runtime-ubuntu22.04@sha256:" + "a" * 64,
        "registry.example.com:5000/team/cuda:12.4",
        "localhost/base",
        "gpudoctor-test/base:bookworm-py3.11-v1",
        "ubuntu",
    ],
)
def test_image_reference_accepts_the_distribution_grammar(value: str) -> None:
    assert validate.image_reference(value, "--base-image") == value


@pytest.mark.parametrize(
    "value",
    [
        "Nvidia/cuda:12.4",  # upper case in the path
        "nvidia/cuda:12.4;rm -rf /",
        "nvidia/cuda:12.4 AS evil",
        "nvidia/cuda:$TAG",
        "nvidia/cuda:" + "x" * 129,
        "nvidia/cuda@sha256:short",
        "nvidia//cuda",
        "",
        "nvidia/cuda:12.4\nRUN id",
    ],
)
def test_image_reference_refuses_the_rest(value: str) -> None:
    with pytest.raises(UsageError, match="--base-image"):
        validate.image_reference(value, "--base-image")


def test_tag_refuses_a_digest() -> None:
    with pytest.raises(UsageError, match="digest"):
        validate.image_tag("team/torch@sha256:" + "a" * 64)
    assert validate.image_tag("team/torch:2.5") == "team/torch:2.5"


def test_pinned_reference_detection() -> None:
    assert validate.reference_is_pinned("a/b:1@sha256:" + "0" * 64)
    assert not validate.reference_is_pinned("a/b:1")


@pytest.mark.parametrize(
    ("value", "pair"),
    [
        ("HTTPS_PROXY=http://proxy.example:3128", ("HTTPS_PROXY", "http://proxy.example:3128")),
        ("EMPTY=", ("EMPTY", "")),
        ("_x1=a,b", ("_x1", "a,b")),
    ],
)
def test_build_arg_accepts_key_value(value: str, pair: tuple[str, str]) -> None:
    assert validate.build_arg(value) == pair


@pytest.mark.parametrize(
    "value", ["NOVALUE", "1KEY=a", "KEY-X=a", "KEY=a b", "KEY=$(id)", "KEY=a;b", "KEY='a'", "=a"]
)
def test_build_arg_refuses_bad_names_and_shell_values(value: str) -> None:
    with pytest.raises(UsageError, match="--build-arg"):
        validate.build_arg(value)


@pytest.mark.parametrize(
    "value",
    [
        "https://download.pytorch.org/whl/cu124",
        "http://mirror.internal:8080/simple",
        "file:///opt/pypi/simple",
    ],
)
def test_index_url_accepts_http_https_file(value: str) -> None:
    assert validate.index_url(value) == value


@pytest.mark.parametrize(
    "value",
    [
        "ftp://mirror/simple",
        "download.pytorch.org/whl",
        "https://x/simple; rm -rf /",
        "https://x/$(id)",
        "https://x/a b",
        "https://",
        "https://x/'q'",
    ],
)
def test_index_url_refuses_other_schemes_and_shell(value: str) -> None:
    with pytest.raises(UsageError, match="--index-url"):
        validate.index_url(value)


@pytest.mark.parametrize("value", ["3.11", "3.9", "3.13"])
def test_python_version_accepts_3x(value: str) -> None:
    assert validate.python_version(value) == value


@pytest.mark.parametrize("value", ["3", "3.11.2", "2.7", "py3.11", "3.11;", "3.x"])
def test_python_version_refuses_other_forms(value: str) -> None:
    with pytest.raises(UsageError, match="--python"):
        validate.python_version(value)


@pytest.mark.parametrize(
    ("check", "value"),
    [
        (validate.pip_requirement, "numpy\n"),
        (validate.python_version, "3.11\n"),
        (validate.image_tag, "team/torch:1\n"),
        (validate.index_url, "https://mirror.example/simple\n"),
        (validate.build_arg, "KEY\n=value"),
    ],
)
def test_a_trailing_line_break_never_passes(check: object, value: str) -> None:
    # `$` also matches before a final newline; the validators must match the whole value.
    with pytest.raises(UsageError):
        check(value)  # type: ignore[operator]
