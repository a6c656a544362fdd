"""The peer versions the record_*.py scripts of this folder record with: the exact pins of the
Makefile's PEER_DEPS, which `make bench-peers` installs into .venv-peers.

Each record script calls check_peers(__doc__, dist, ...) before it imports the peers. It
refuses to record (SystemExit naming each problem) when an installed distribution's version
is not its pin, when one is missing, and when the script's docstring does not state
"dist==version" for each pin, so that the text a reader follows stays true after a pin
changes. A local version label counts as its public version, as pip's == does
(torch 2.15.0+cu132 is torch==2.15.0). Reading versions imports nothing."""
import importlib.metadata
import pathlib
import re
import sys

MAKEFILE = pathlib.Path(__file__).resolve().parents[3] / "Makefile"


def pinned():
    """{distribution name (lower case): version} from the Makefile's PEER_DEPS line."""
    m = re.search(r"^PEER_DEPS\s*:?=(.*)$", MAKEFILE.read_text().replace("\\\n", " "), re.M)
    if not m:
        sys.exit(f"{MAKEFILE}: no PEER_DEPS line")
    pins = {}
    for item in m.group(1).split():
        name, sep, version = item.partition("==")
        if not sep:
            sys.exit(f"{MAKEFILE}: PEER_DEPS entry {item!r} is not pinned (name==version)")
        pins[name.lower()] = version
    return pins


def check_peers(doc, *dists):
    pins = pinned()
    problems = []
    for dist in dists:
        want = pins.get(dist.lower())
        if want is None:
            problems.append(f"{dist} is not in the Makefile's PEER_DEPS")
            continue
        if f"{dist}=={want}" not in (doc or ""):
            problems.append(f"the docstring does not state {dist}=={want} (the Makefile's pin)")
        try:
            have = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            problems.append(f"{dist} is not installed (pinned: {want})")
            continue
        if have.split("+")[0] != want:
            problems.append(f"{dist} {have} is installed; the recordings are made with {dist}=={want}")
    if problems:
        sys.exit(f"{pathlib.Path(sys.argv[0]).name}: refusing to record:\n  " + "\n  ".join(problems) +
                 "\nRun it with .venv-peers/bin/python from the repository root (`make bench-peers` creates "
                 ".venv-peers with the Makefile's PEER_DEPS); if a pin changed on purpose, change it in the "
                 "Makefile and in the script's docstring, and re-record.")
