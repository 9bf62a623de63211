"""cudalibs.py: toolkits; cudart, cuDNN, NCCL, libcuda from ldconfig and toolkit dirs; headers."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.facts import CudaToolkit, LibraryFact
from gpudoctor.probes.cudalibs import probe_cuda_libs
from gpudoctor.probes.runner import CommandResult
from tests.support.probe_fakes import LDCONFIG_HEALTHY, NVCC_12_4, FakeRunner

HEALTHY_ANSWERS = {"ldconfig -p": LDCONFIG_HEALTHY, "nvcc --version": NVCC_12_4}


def test_healthy_host_toolkits_and_libraries(scenario) -> None:
    runner = FakeRunner(HEALTHY_ANSWERS)
    facts, issues = probe_cuda_libs(scenario("healthy-multi-gpu"), {}, runner)
    assert issues == []
    # /usr/local/cuda links to cuda-12.4: one toolkit, named by its real directory.
    assert facts.toolkits == (
        CudaToolkit("/usr/local/cuda-11.8", version="11.8.89", nvcc_version=None),
        CudaToolkit("/usr/local/cuda-12.4", version="12.4.1", nvcc_version="12.4.131"),
    )
    lib = "/usr/lib/x86_64-linux-gnu"
    # The soname link, the dev link and the toolkit's lib64 copy are one file.
    assert facts.cudart == (
        LibraryFact(
            "libcudart",
            "/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12.4.127",
            "12.4.127",
        ),
    )
    assert facts.cudnn == (LibraryFact("libcudnn", f"{lib}/libcudnn.so.9.1.0", "9.1.0"),)
    assert facts.nccl == (LibraryFact("libnccl", f"{lib}/libnccl.so.2.21.5", "2.21.5"),)
    assert facts.libcuda == (LibraryFact("libcuda", f"{lib}/libcuda.so.550.90.07", "550.90.07"),)
    ran = [args[1:] for args, _ in runner.calls]
    assert sorted(ran) == [("--version",), ("-p",)]  # nvcc only where the toolkit has one


def test_header_gives_the_full_version_when_the_file_name_only_has_the_major(
    tmp_path: Path,
) -> None:
    lib = tmp_path / "usr/lib/x86_64-linux-gnu"
    lib.mkdir(parents=True)
    (lib / "libcudnn.so.8").write_text("")
    (lib / "libnccl.so.2").write_text("")
    inc = tmp_path / "usr/include"
    inc.mkdir(parents=True)
    (inc / "cudnn_version.h").write_text(
        "#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 9\n#define CUDNN_PATCHLEVEL 7\n"
    )
    (inc / "nccl.h").write_text(
        "#define NCCL_MAJOR 2\n#define NCCL_MINOR 18\n#define NCCL_PATCH 3\n"
    )
    ldconfig = (
        "\tlibcudnn.so.8 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.8\n"
        "\tlibnccl.so.2 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libnccl.so.2\n"
    )
    facts, _ = probe_cuda_libs(tmp_path, {}, FakeRunner({"ldconfig -p": ldconfig}))
    assert [f.version for f in facts.cudnn] == ["8.9.7"]
    assert [f.version for f in facts.nccl] == ["2.18.3"]


def test_header_of_another_major_is_not_applied(tmp_path: Path) -> None:
    inc = tmp_path / "usr/include"
    inc.mkdir(parents=True)
    (inc / "cudnn_version.h").write_text(
        "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n"
    )
    ldconfig = "\tlibcudnn.so.8 (libc6,x86-64) => /usr/lib/libcudnn.so.8\n"
    facts, _ = probe_cuda_libs(tmp_path, {}, FakeRunner({"ldconfig -p": ldconfig}))
    # The listed file is not in the tree: kept as ldconfig named it, version from the soname.
    assert facts.cudnn == (LibraryFact("libcudnn", "/usr/lib/libcudnn.so.8", "8"),)


def test_ldconfig_failure_is_an_issue_and_toolkit_dirs_still_count(scenario) -> None:
    runner = FakeRunner({"nvcc --version": NVCC_12_4})  # no ldconfig: "not found"
    facts, issues = probe_cuda_libs(scenario("healthy-multi-gpu"), {}, runner)
    assert [(i.field, i.code) for i in issues] == [("libraries", "command-not-found")]
    assert [f.version for f in facts.cudart] == ["12.4.127"]
    assert facts.cudnn == ()


def test_nvcc_that_fails_is_an_issue(scenario) -> None:
    broken = CommandResult(("nvcc", "--version"), 1, "", "nvcc: error while loading libs\n")
    runner = FakeRunner({"ldconfig -p": "", "nvcc --version": broken})
    facts, issues = probe_cuda_libs(scenario("healthy-multi-gpu"), {}, runner)
    assert [t.nvcc_version for t in facts.toolkits] == [None, None]
    (issue,) = issues
    assert (issue.field, issue.code) == ("toolkits.nvcc_version", "command-failed")
    assert "exited 1: nvcc: error while loading libs" in issue.reason


def test_cuda_home_and_headers_only_toolkit(tmp_path: Path) -> None:
    """A pip-style toolkit (no version.json, no version.txt) named by CUDA_HOME."""
    tk = tmp_path / "opt/toolkits/cuda"
    (tk / "include").mkdir(parents=True)
    (tk / "include/cuda_runtime_api.h").write_text("#define CUDART_VERSION  12080\n")
    (tk / "lib").mkdir()
    (tk / "lib/libcudart.so.12").write_text("")
    facts, _ = probe_cuda_libs(tmp_path, {"CUDA_HOME": "/opt/toolkits/cuda"}, FakeRunner())
    assert facts.toolkits == (CudaToolkit("/opt/toolkits/cuda", version="12.8"),)
    assert facts.cudart == (
        LibraryFact("libcudart", "/opt/toolkits/cuda/lib/libcudart.so.12", "12"),
    )


def test_wsl_libcuda(scenario) -> None:
    facts, _ = probe_cuda_libs(scenario("wsl"), {}, FakeRunner({"ldconfig -p": ""}))
    assert facts.libcuda == (LibraryFact("libcuda", "/usr/lib/wsl/lib/libcuda.so.1.1", "1.1"),)
    assert facts.toolkits == ()


def test_cudnn_cublas_nccl_on_ld_library_path_and_in_the_loader_cache(tmp_path: Path) -> None:
    """Library shadowing facts: LD_LIBRARY_PATH folders in search order, and the loader cache."""
    first = tmp_path / "opt/cudnn-8.9/lib"
    second = tmp_path / "usr/local/nccl/lib"
    for folder, names in (
        (
            first,
            ("libcudnn.so.8.9.7", "libcublas.so.12.1.3.1", "libcudart.so.12", "libfoo.so.1"),
        ),
        (second, ("libnccl.so.2.18.3",)),
    ):
        folder.mkdir(parents=True)
        for name in names:
            (folder / name).write_text("")
    (first / "libcudnn.so.8").symlink_to("libcudnn.so.8.9.7")
    cache = tmp_path / "usr/lib/x86_64-linux-gnu"
    cache.mkdir(parents=True)
    (cache / "libnccl.so.2.19.3").write_text("")
    (cache / "libnccl.so.2").symlink_to("libnccl.so.2.19.3")
    ldconfig = "\tlibnccl.so.2 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libnccl.so.2\n"
    env = {"LD_LIBRARY_PATH": "/opt/cudnn-8.9/lib:relative:/usr/local/nccl/lib:/missing"}
    facts, _ = probe_cuda_libs(tmp_path, env, FakeRunner({"ldconfig -p": ldconfig}))
    assert facts.ld_library_path_libs == (  # every library a wheel brings; not libfoo
        LibraryFact("libcublas", "/opt/cudnn-8.9/lib/libcublas.so.12.1.3.1", "12.1.3.1"),
        LibraryFact("libcudart", "/opt/cudnn-8.9/lib/libcudart.so.12", "12"),
        LibraryFact("libcudnn", "/opt/cudnn-8.9/lib/libcudnn.so.8.9.7", "8.9.7"),
        LibraryFact("libnccl", "/usr/local/nccl/lib/libnccl.so.2.18.3", "2.18.3"),
    )
    assert facts.loader_cache_libs == (
        LibraryFact("libnccl", "/usr/lib/x86_64-linux-gnu/libnccl.so.2.19.3", "2.19.3"),
    )
