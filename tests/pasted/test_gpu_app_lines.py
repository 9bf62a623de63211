"""The lines the programs people run on GPUs print when they fall back to the CPU, find no GPU or
run out of GPU memory (llama.cpp, ollama, vLLM, SGLang), as their own source prints them: each
is named by its signature, at its severity, with the numbers it states, and a near miss is not.
A llama.cpp `function: error ...` line no signature knows is read as an unknown error line, a
program named in prose is read as a named word, and ollama's older model-load line is read."""

from __future__ import annotations

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.apps import NAME as APPS
from gpudoctor.pasted.words import NAME as WORDS
from tests.support.pasted_findings import Read, findings_of, named_lines, warn_or_error

# (code, a line as the program prints it, severity, words the cause or fix must hold, near miss)
CASES = [
    (
        "llama-cpp-no-gpu-offload",
        "warning: no usable GPU found, --gpu-layers option will be ignored",
        Severity.WARN,
        ("llama_supports_gpu_offload", "-DGGML_CUDA=on"),
        "warning: no usable model found, --gpu-layers option will be ignored",
    ),
    (
        "llama-cpp-no-gpu-offload",
        "warning: not compiled with GPU offload support, --n-gpu-layers option will be ignored",
        Severity.WARN,
        ("run on the CPU", "nvidia-smi"),
        "warning: compiled with GPU offload support, using --n-gpu-layers 99",
    ),
    (
        "llama-cpp-buffer-alloc-failed",
        "llama_model_load: error loading model: unable to allocate CUDA1 buffer",
        Severity.ERROR,
        ("CUDA1 buffer", "GPU 1"),
        "llama_model_load: error loading model: unable to allocate CPU buffer",
    ),
    (
        "ollama-driver-library-mismatch",
        'time=2025-01-20T10:11:12.000Z level=WARN source=gpu.go:617 msg="version mismatch '
        "between driver and cuda driver library - reboot or upgrade may be required: library "
        '/usr/lib/x86_64-linux-gnu/libcuda.so.550.120"',
        Severity.ERROR,
        ("/usr/lib/x86_64-linux-gnu/libcuda.so.550.120", "reboot"),
        "version mismatch between client and server",
    ),
    (
        "ollama-no-nvidia-devices",
        'level=INFO source=gpu.go:620 msg="no nvidia devices detected by library '
        '/usr/lib/x86_64-linux-gnu/libcuda.so.535.183.01"',
        Severity.ERROR,
        ("libcuda.so.535.183.01", "CUDA_VISIBLE_DEVICES"),
        'msg="no amd devices detected by library /opt/rocm/lib/libamdhip64.so"',
    ),
    (
        "ollama-cuda-init-failed",
        'level=WARN source=gpu.go:623 msg="unknown error initializing cuda driver library '
        "/usr/lib/x86_64-linux-gnu/libcuda.so.560.35.03: cuda driver library init failure: 999. "
        'see https://github.com/ollama/ollama/blob/main/docs/troubleshooting.md"',
        Severity.ERROR,
        ("CUDA_ERROR_UNKNOWN (999)", "nvidia-modprobe -u"),
        "cuda driver library init done",
    ),
    (
        "ollama-gpu-too-old",
        'level=INFO source=gpu.go:318 msg="[0] CUDA GPU is too old. Compute Capability '
        'detected: 3.5"',
        Severity.ERROR,
        ("(3.5)",),
        'msg="[0] CUDA GPU detected. Compute Capability detected: 8.6"',
    ),
    (
        "vllm-free-memory-below-utilization",
        "ValueError: Free memory on device cuda:0 (3.25/23.43 GiB) on startup is less than "
        "desired GPU memory utilization (0.96, 22.49 GiB). Decrease GPU memory utilization or "
        "reduce GPU memory used by other processes.",
        Severity.ERROR,
        ("3.25 GiB of the GPU's 23.43 GiB", "22.49 GiB", "--gpu-memory-utilization 0.96"),
        # the debug line vLLM logs after a start that did fit
        "Free memory on device (70.1/79.44 GiB) on startup. Desired GPU memory utilization is "
        "(0.9, 71.5 GiB).",
    ),
    (
        "llama-cpp-no-layers-offloaded",
        "llm_load_tensors: offloaded 0/41 layers to GPU",
        Severity.WARN,
        ("none of the model's 41 layers", "n_gpu_layers=-1"),
        "llm_load_tensors: offloaded 40/41 layers to GPU",
    ),
    (
        "vllm-no-platform",
        "INFO 08-11 04:15:03 [__init__.py:243] No platform detected, vLLM is running on "
        "UnspecifiedPlatform",
        Severity.ERROR,
        ("nvmlInit", "runtimeClassName: nvidia"),
        "INFO 05-28 14:02:21 [__init__.py:239] Automatically detected platform cuda.",
    ),
    (
        "ctranslate2-cuda-error",
        "RuntimeError: CUDA failed with error out of memory",
        Severity.ERROR,
        ("cudaErrorMemoryAllocation (2)", "faster-whisper"),
        "RuntimeError: cuBLAS failed with status CUBLAS_STATUS_ALLOC_FAILED",
    ),
    (
        "sglang-not-enough-memory",
        "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current "
        "value: self.server_args.mem_fraction_static=0.88",
        Severity.ERROR,
        ("--mem-fraction-static", "--tp"),
        "Not enough memory for the CUDA graph; try --disable-cuda-graph",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{n}" for n, c in enumerate(CASES)])
def test_a_program_line_is_named_with_its_numbers(
    read: Read, matrix: Matrix, case: tuple[str, str, Severity, tuple[str, ...], str]
) -> None:
    code, line, severity, said, near = case
    named = named_lines(read, matrix, line + "\n", code)
    assert len(named) == 1
    assert named[0].severity == severity
    text = named[0].detail + " " + named[0].fix
    for words in said:
        assert words in text
    try:
        missed = named_lines(read, matrix, near + "\n", code)
    except FactsError:
        missed = []
    assert missed == []


def test_llama_cpp_follow_up_line_alone_names_the_cpu_build(read: Read, matrix: Matrix) -> None:
    line = "warning: one possible reason is that llama.cpp was compiled without GPU support\n"
    assert len(named_lines(read, matrix, line, "llama-cpp-no-gpu-offload")) == 1


def test_vllm_that_found_no_platform_fails_to_infer_its_device(read: Read, matrix: Matrix) -> None:
    paste = (
        "INFO 05-28 14:02:21 [__init__.py:247] No platform detected, vLLM is running on "
        "UnspecifiedPlatform\n"
        '    raise RuntimeError("Failed to infer device type")\n'
        "RuntimeError: Failed to infer device type\n"
    )
    (cause,) = named_lines(read, matrix, paste, "vllm-no-platform")
    symptoms = named_lines(read, matrix, paste, "vllm-device-type-unknown")
    assert cause.severity == Severity.ERROR
    assert symptoms
    assert {f.severity for f in symptoms} == {Severity.INFO}
    # alone, the engine's error is the error
    (alone,) = named_lines(
        read, matrix, "RuntimeError: Failed to infer device type\n", "vllm-device-type-unknown"
    )
    assert alone.severity == Severity.ERROR


def test_a_buffer_next_to_ggml_out_of_memory_is_its_symptom(read: Read, matrix: Matrix) -> None:
    paste = (
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 8192.00 MiB on device 0: "
        "cudaMalloc failed: out of memory\n"
        "llama_model_load: error loading model: unable to allocate CUDA0 buffer\n"
    )
    findings = findings_of(read, matrix, paste)
    (oom,) = named_lines(read, matrix, paste, "ggml-cuda-out-of-memory")
    (buffer,) = named_lines(read, matrix, paste, "llama-cpp-buffer-alloc-failed")
    assert oom.severity == Severity.ERROR
    assert buffer.severity == Severity.INFO
    assert [c for c, _ in warn_or_error(findings) if c == "report-error"] == ["report-error"]


@pytest.mark.parametrize(
    "line",
    [
        "llama_model_load: error loading model: error loading model architecture: unknown model "
        "architecture: 'qwen3'",
        "0.00.004.586 E llama_model_load: error loading model: error loading model vocabulary: "
        "unknown pre-tokenizer type: 'deepseek-llm'",
        "llama_model_load_from_file_impl: failed to load model",
        "main: error: unable to load model",
    ],
)
def test_a_c_function_that_failed_is_an_unknown_error_line(read: Read, line: str) -> None:
    facts = read(line + "\n")
    assert facts.report is not None
    assert [u.text for u in facts.report.unknown_lines] == [line]


@pytest.mark.parametrize(
    "line",
    [
        "llama_model_loader: loaded meta data with 29 key-value pairs and 292 tensors",
        "llm_load_print_meta: model type = 8B",
        "ggml_cuda_init: found 1 CUDA devices:",
    ],
)
def test_a_c_function_that_logs_progress_is_not_an_error(read: Read, line: str) -> None:
    with pytest.raises(FactsError, match="no report recognised"):
        read(line + "\n")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("ollama is using CPU instead of GPU\n", "ollama"),
        ("vllm won't start on my server\n", "vLLM"),
        ("ComfyUI is really slow after the update\n", "ComfyUI"),
        ("llama-cpp-python does not offload anything to my card\n", "llama-cpp-python"),
        ("I built llama.cpp yesterday and it is slow\n", "llama.cpp"),
        ("text-generation-inference keeps crashing on start\n", "text-generation-inference"),
        ("Is sglang supported on this machine?\n", "SGLang"),
        ("AUTOMATIC1111 takes forever to generate one image\n", "stable-diffusion-webui"),
    ],
)
def test_a_program_named_in_prose_is_a_named_word(
    read: Read, matrix: Matrix, text: str, said: str
) -> None:
    facts = read(text)
    assert facts.report is not None
    assert facts.report.sections == (WORDS,)
    note = next(n for n in facts.report.notes if n.startswith("the paste names"))
    assert said in note
    assert warn_or_error(findings_of(read, matrix, text)) == []


@pytest.mark.parametrize("text", ["the llamas are out\n", "my vllm-like server\n"])
def test_a_word_that_only_holds_a_program_name_is_not_read(read: Read, text: str) -> None:
    with pytest.raises(FactsError, match="no report recognised"):
        read(text)


def test_ollama_0_5_model_load_line_is_read(read: Read, matrix: Matrix) -> None:
    line = (
        'time=2025-01-20T10:11:12.000Z level=INFO source=memory.go:356 msg="offload to cuda" '
        'layers.requested=-1 layers.model=33 layers.offload=28 layers.split="" '
        'memory.available="[7.6 GiB]" memory.gpu_overhead="0 B" memory.required.full="8.9 GiB"\n'
    )
    facts = read(line)
    assert facts.report is not None
    assert APPS in facts.report.sections
    assert any("28 of 33 layers on the GPU, 7.6 GiB" in n for n in facts.report.notes)
    assert warn_or_error(findings_of(read, matrix, line)) == []


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("load_tensors: offloaded 49/49 layers to GPU", "49/49 of the model's layers"),
        (
            'level=INFO source=ggml.go:375 msg="offloaded 29/29 layers to GPU"',
            "29/29 of the model's layers",
        ),
        ("load_backend: loaded CUDA backend from /app/libggml-cuda.so", "its CUDA backend"),
        (
            "INFO 05-28 14:02:21 [__init__.py:239] Automatically detected platform cuda.",
            "vLLM detected its cuda platform",
        ),
    ],
)
def test_start_up_lines_that_show_a_gpu_in_use_are_read(
    read: Read, matrix: Matrix, line: str, said: str
) -> None:
    facts = read(line + "\n")
    assert facts.report is not None
    assert APPS in facts.report.sections
    assert any(said in n for n in facts.report.notes)
    assert warn_or_error(findings_of(read, matrix, line + "\n")) == []


@pytest.mark.parametrize(
    "line",
    [
        "I offloaded 20/33 layers to GPU and it is still slow",
        "load_backend: loaded CPU backend from /app/libggml-cpu-haswell.so",
        "Automatically detected platform cuda.",
    ],
)
def test_near_misses_of_start_up_lines_are_not_read_as_them(read: Read, line: str) -> None:
    try:
        facts = read(line + "\n")
    except FactsError:
        return
    assert facts.report is not None
    assert APPS not in facts.report.sections
