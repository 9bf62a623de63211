"""The one way gpudoctor writes a file: atomically, through an unpredictable temp file.

gpudoctor often runs as root and writes into folders other users can write to (a CI workspace,
/var/lib/node_exporter). A fixed temp name (`.report.json.tmp`) lets anyone plant a symlink
there and have root overwrite the file it points to, and makes two concurrent writers trip over
each other's temp file. So every write here:

- creates its temp file exclusively, with a random name and without following symlinks
  (`O_CREAT | O_EXCL | O_NOFOLLOW`), in the target's own folder, then renames it over the target
  (a reader, e.g. node-exporter's textfile collector, never sees half a file; rename replaces a
  symlink at the target instead of writing through it; the last of concurrent writers wins);
- removes the temp file when anything fails (a full disk leaves nothing behind);
- keeps the mode of the file it replaces, or makes a new one as `open()` would (0666 less the
  umask); `private=True` makes it 0600 whatever was there (an unredacted snapshot);
- with `root`, walks from `root` to the target's folder one component at a time without
  following symlinks, so that a symlinked subfolder inside an output tree cannot redirect it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path, PurePosixPath

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_TMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class SymlinkInTree(OSError):
    """A folder on the way from the output root to a file is a symlink."""


def write_atomic(
    path: Path, data: bytes, *, private: bool = False, root: Path | None = None
) -> None:
    """Replace `path` with `data` atomically; see the module docstring for the guarantees.

    Raises:
        SymlinkInTree: with `root`, a folder between `root` and `path` is a symlink.
        OSError: the folder cannot be written (permissions, a full disk, ...).
    """
    dir_fd = _open_parent(path, root)
    try:
        _replace_in(dir_fd, path.name, data, private=private)
    finally:
        os.close(dir_fd)


def _open_parent(path: Path, root: Path | None) -> int:
    if root is None:
        return os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    rel = PurePosixPath(path.relative_to(root).as_posix()).parent
    os.makedirs(root, exist_ok=True)  # the root itself is the user's choice, symlink or not
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    for part in rel.parts:
        if part in ("", ".", ".."):
            os.close(fd)
            raise OSError(errno.EINVAL, "not a plain relative path", str(path))
        with contextlib.suppress(FileExistsError):
            os.mkdir(part, 0o777, dir_fd=fd)
        try:
            child = os.open(part, _DIR_FLAGS, dir_fd=fd)
        except OSError as exc:
            linked = exc.errno in (errno.ELOOP, errno.ENOTDIR) and _is_symlink(part, fd)
            os.close(fd)
            if linked:
                raise SymlinkInTree(
                    errno.ELOOP, "a symlinked folder inside the output folder", str(path)
                ) from None
            raise
        os.close(fd)
        fd = child
    return fd


def _is_symlink(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _replace_in(dir_fd: int, name: str, data: bytes, *, private: bool) -> None:
    mode = 0o600 if private else _mode_for(dir_fd, name)
    tmp = f".{name}.{secrets.token_hex(8)}.tmp"
    fd = os.open(tmp, _TMP_FLAGS, 0o600, dir_fd=dir_fd)
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fchmod(stream.fileno(), mode)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise


def _mode_for(dir_fd: int, name: str) -> int:
    """The mode of the regular file being replaced, or what a new file gets from the umask."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        st = None
    if st is not None and stat.S_ISREG(st.st_mode):
        return stat.S_IMODE(st.st_mode)
    return 0o666 & ~_umask()


def _umask() -> int:
    # The only portable way to read the umask is to set it; nothing else creates files meanwhile.
    current = os.umask(0o022)
    os.umask(current)
    return current
