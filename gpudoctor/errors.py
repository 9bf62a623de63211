"""The error hierarchy: domain code raises these; only the CLI maps them to a message and exit code.

Each error carries a stable `reference` (kebab-case), a one-line message that names the bad input,
and a hint that tells the user the next step (the shape of pip's DiagnosticPipError).
"""

from __future__ import annotations

from gpudoctor.exitcodes import ExitCode


class GpuDoctorError(Exception):
    """Base of every error gpudoctor reports to a user."""

    exit_code: ExitCode = ExitCode.USAGE
    default_reference = "gpudoctor-error"

    def __init__(
        self, message: str, *, hint: str | None = None, reference: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.reference = reference or self.default_reference

    def __str__(self) -> str:
        return self.message


class UsageError(GpuDoctorError):
    """A flag value or expression the user gave cannot be used."""

    default_reference = "bad-usage"


class BadValue(GpuDoctorError):
    """A version, compute capability or arch-list entry that is not in a form gpudoctor reads,
    raised by the matrix queries. Given on the command line it is bad input (exit 2); met in a
    host's facts it makes the check's answer unknown (`value-not-understood`), not a crash."""

    default_reference = "bad-value"


class FactsError(GpuDoctorError):
    """A snapshot file is unreadable, malformed, or of an unknown schema version."""

    default_reference = "bad-snapshot"


class MatrixError(GpuDoctorError):
    """The matrix file is malformed or invalid; the message names file, table, row and key."""

    default_reference = "bad-matrix"


class NoMatchingRow(MatrixError):
    """No matrix row meets the constraints; the message lists the nearest rows and why."""

    default_reference = "no-matching-row"


class RenderError(GpuDoctorError):
    """The Dockerfile template could not be rendered (missing template, undefined variable)."""

    default_reference = "render-failed"


class EnvironmentUnavailable(GpuDoctorError):
    """A part of the environment the command needs cannot be reached (e.g. the Docker daemon)."""

    exit_code = ExitCode.ENVIRONMENT
    default_reference = "environment-unavailable"


class BuildFailed(GpuDoctorError):
    """An image build step failed; carries the failing step and the log tail."""

    exit_code = ExitCode.BUILD_FAILED
    default_reference = "build-failed"

    def __init__(
        self,
        message: str,
        *,
        hint: str | None = None,
        step: str | None = None,
        log_tail: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message, hint=hint)
        self.step = step
        self.log_tail = log_tail


class VerifyFailed(GpuDoctorError):
    """A built image does not hold what its matrix row promises."""

    exit_code = ExitCode.BUILD_FAILED
    default_reference = "verify-failed"
