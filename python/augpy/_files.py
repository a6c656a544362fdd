"""augpy._files: reading image files safely, for the sources of augpy.data and the stages.

Only regular files are read. A FIFO named ``x.jpg`` would block for ever and a link to
``/dev/zero`` would read until memory runs out, so the file is opened without blocking
(``O_NONBLOCK``: a FIFO with no writer opens at once) and checked with ``fstat`` on the
open descriptor, which a swap of the path after a check cannot fool. Folders list regular
files only, and refuse a link whose target leaves the folder's root unless the caller asks
to follow every link (``follow_symlinks=True``)."""
import errno
import os
import stat

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def read_regular(path, func, limit=-1):
    """The bytes of the regular file at ``path`` (its first ``limit`` bytes when limit >= 0);
    an OSError naming func and the path for a FIFO, a device, a socket or a folder (a bad file,
    as a missing one is: the stages' ``on_error`` applies to both)."""
    try:
        fd = os.open(path, _FLAGS)
    except OSError as e:  # the same class (FileNotFoundError, PermissionError...), naming func
        raise type(e)(e.errno, f"{func}: {e.strerror}", os.fspath(path)) from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, f"{func}: is a folder", os.fspath(path))
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, f"{func}: not a regular file ({_kind(st.st_mode)})", os.fspath(path))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=True) as f:
            fd = -1
            return f.read(limit)
    finally:
        if fd >= 0:
            os.close(fd)


def _kind(mode):
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "not a regular file"


def is_regular(path):
    """True for a regular file (after following links)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def inside(path, real_root):
    """True when path, with every link resolved, is real_root or below it."""
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def check_inside(path, real_root, follow_symlinks, func):
    """path, unless it leaves the root through a link and follow_symlinks is off: then a
    ValueError naming both (a folder of links into a full dataset is common, so such links are
    refused loudly rather than dropped; an untrusted folder's link to /etc is not read)."""
    if not follow_symlinks and not inside(path, real_root):
        raise ValueError(f"{func}: {os.fspath(path)!r} leads outside the root, to {os.path.realpath(path)!r}; "
                         f"pass follow_symlinks=True to read the files links lead to")
    return path


def allowed(path, real_root, follow_symlinks, func):
    """A listed entry is read when it is a regular file (after following links; a FIFO or a
    device is left out), and it must stay inside the root unless follow_symlinks."""
    return is_regular(path) and bool(check_inside(path, real_root, follow_symlinks, func))
