#!/usr/bin/env python3
"""Static checks of the CUDA fatbinary embedded in a shared object built by nvcc (no GPU needed).

What
  python3 scripts/check_fatbin.py --cuobjdump PATH LIB.so [--fma-allowed REGEX] [--stack-allowed REGEX]
      [--nvdisasm PATH] [--sass-targets sm_75,sm_80,sm_90,sm_100] [--ptx-targets compute_100]
      [--max-shared 49152] [-j N] [-v]
  checks, for the fatbinary in LIB.so:
  1. targets: SASS for every --sass-targets arch and PTX for every --ptx-targets arch is embedded
     (cuobjdump --list-elf --list-ptx); with --targets-only this is the only check (seconds: the
     wheel check, scripts/wheel_check.sh, runs it on the module inside the wheel);
  2. resources, per kernel and SASS target (cuobjdump --dump-resource-usage): LOCAL:0 and STACK:0, and
     static SHARED <= --max-shared. nvcc 13 reports a per-thread array indexed at run time, a register
     spill or a non-inlined call as a stack frame (STACK), not as LOCAL; both mean local memory, and the
     FAIL line adds the number of LDL/STL instructions. Kernels matching --stack-allowed (default: none)
     are exempt; note that the math library's accurate sinf/cosf/tanf/sin/cos/tan keep a small stack
     frame for their large-argument reduction;
  3. registers, per kernel and SASS target: the block of the kernel's largest launch fits the 64 Ki
     registers of an SM (registers per thread, allocated in units of 8, x threads <= 65536; else the
     launch fails with cudaErrorLaunchOutOfResources). The largest launch is the kernel's
     __launch_bounds__ (.maxntid in its PTX) or, without one, --max-threads (1024: every thread count the
     API accepts may reach any kernel through the launch settings);
  4. no fused multiply-add outside kernels whose mangled or demangled name matches --fma-allowed
     (re.search; default 'fma', which also matches e.g. 'fmax': pass a tighter regex if such kernels exist):
     - SASS, per target: FFMA*/DFMA*/HFMA* instructions, except `HFMA2(.MMA) Rd, -RZ, RZ, a, b`, which
       ptxas uses to load a constant into a register (0*0+c, exact);
     - PTX (every embedded PTX): fma/mad on floating types, and mul/add/sub on floating types without a
       rounding modifier (.rn/.rz/.rm/.rp): the driver's JIT (default --fmad=true: the fatbinary records
       no ptxas options) may fuse those when it compiles the PTX for a newer GPU. With --fmad=false nvcc
       emits mul.rn/add.rn; the non-.rn forms come from fmad=true builds or from inline asm such as
       cuda_fp16's __hmul/__hadd (use __hmul_rn/__hadd_rn). A kernel's PTX includes the .func it calls
       (e.g. __internal_accurate_pow of pow()); math-library calls (expf, powf, fmodf...) contain fma;
     - correctly rounded division and square root (a/b, sqrtf, 1/x, double too) compile to
       MUFU.RCP/RSQ(64H) followed by FFMA/DFMA refinement steps even with --fmad=false. Those FMAs are
       accepted when the kernel's SASS at that target contains MUFU.RCP/RSQ and its PTX (with callees)
       has no fused or contractible op (div.rn/sqrt.rn are single PTX instructions; ptxas never fuses .rn
       mul/add), so a contraction in a dividing kernel is still caught through its PTX. The table counts
       them under 'FMA in div'.
  5. vector fast paths (--vector-kernels REGEX): each kernel whose demangled name matches is a contiguous
     fast path (src/cuda/vec.cuh), and at every SASS target it must contain a vector global access wider
     than its largest element type (LDG/STG/LD/ST .64 or .128; .128 when an element type among its
     template arguments is of 8 bytes or more; functor arguments are ignored) and, when every such
     element type is of 2 bytes or more, no byte-wide one (.U8/.S8); --vector-require NAMES (comma
     separated base names) fails for each name no kernel of the module has.
  Prints a table (functions per target, max registers / shared / stack / local, FMA instructions in
  allowed kernels and in division/sqrt expansions, violations), with --kernels a table per kernel (each
  template's instantiations together: registers per target, shared, stack, the largest launch and its
  registers), then one FAIL line per violation (per kernel and kind, naming the targets).
  --write-registers FILE writes "kernel registers" lines (the most over targets and instantiations) for
  the CUDA emulation, which refuses launches that would not fit (tests/cuda_emu); --check-registers FILE
  fails when FILE is stale: a line whose count differs from the build's, a kernel the build lacks, or
  a kernel of more than FREE_REGS (64) registers missing. A kernel of at most 64 registers may be
  absent: every block the API accepts (<= 1024 threads) fits then, so the emulation, which checks only
  the kernels it lists, has nothing to refuse (a new small kernel needs no table edit). Exit 0 when
  clean, 1 on violations, 2 when the tools fail, LIB.so holds no device code, or it embeds no PTX
  (checks 3 and 4 read the launch bounds and the division expansions from it).

Why
  No machine of this project has a GPU. The CUDA backend must be bit-exact with the CPU backend, so every
  kernel except the explicit fma ones is built with --fmad=false; it must also run on every target GPU
  (SASS for sm_75..sm_100, PTX for later ones) without local memory traffic or oversized static shared
  memory. These properties are visible in the fatbinary without running it.

How
  cuobjdump and nvdisasm come from the nvidia-cuda-cuobjdump / nvidia-cuda-nvdisasm wheels (13.2 reads
  CUDA 13.0 fatbinaries): see scripts/cuda_toolchain.sh (AUG_CUOBJDUMP, AUG_NVDISASM); nvdisasm is
  looked for beside cuobjdump, then on PATH, unless --nvdisasm names it. Disassembly is the slow part
  (seconds per MB of cubin), so the cubins are extracted (`cuobjdump -xelf all`, into a temp dir) and
  disassembled by nvdisasm in parallel (-j, default: CPU count), largest first; nvdisasm prints a quarter
  of `cuobjdump -sass`'s text (no encodings) and its output is parsed as it streams. Names are demangled
  with c++filt when present. Self-test: scripts/test_check_fatbin.sh.
"""

import argparse
import collections
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

FMA_OP = re.compile(r"^(FFMA|DFMA|HFMA)")
ZERO_REG = re.compile(r"^-?\|?-?RZ\|?$")
DIVSQRT_OP = re.compile(r"^MUFU\.(RCP|RSQ)")
LOCAL_OP = re.compile(r"^(LDL|STL)(\.|$)")
GLOBAL_OP = re.compile(r"^(LDG|STG|LD|ST)(\.|$)")
ELEM_SIZE = {"bool": 1, "char": 1, "signed char": 1, "unsigned char": 1, "short": 2, "unsigned short": 2,
             "int": 4, "unsigned int": 4, "long": 8, "unsigned long": 8, "long long": 8,
             "unsigned long long": 8, "float": 4, "double": 8, "__int128": 16, "unsigned __int128": 16}
SASS_INSN = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
PREDICATE = re.compile(r"^@!?U?P(?:T|\d+)\s+")
TARGET_LINE = re.compile(r"^\s*\.target\s+(sm_\w+)")
ARCH_LINE = re.compile(r"^\s*arch\s*=\s*(sm_\w+)")
LIST_LINE = re.compile(r"^(ELF|PTX) file\s+\d+:\s+(\S+)")
LIST_ARCH = re.compile(r"\.(sm_\d+[a-z]?)\.(cubin|ptx)$")
RES_FUNC = re.compile(r"^\s*Function\s+(\S+?):\s*(.*)$")
RES_FIELD = re.compile(r"([A-Z_]+(?:\[\d+\])?):(\d+)")
PTX_FUNC = re.compile(r"^\s*(?:\.(?:visible|weak|extern)\s+)*\.(entry|func)\s+(?:\([^)]*\)\s*)?([\w$.]+)")
PTX_MAXNTID = re.compile(r"^\s*\.(?:maxntid|reqntid)\s+(\d+)(?:\s*,\s*(\d+))?(?:\s*,\s*(\d+))?")
REGS_PER_SM_BLOCK = 65536   # registers one block may use (every target: sm_75..sm_100)
REG_UNIT = 8                # registers per thread are allocated in units of 8 (256 per warp)
FREE_REGS = REGS_PER_SM_BLOCK // 1024  # at most this many per thread: any block of <= 1024 threads fits
PTX_CALL = re.compile(r"^call(?:\.\w+)*\s+(?:\([^)]*\)\s*,\s*)?([\w$.]+)")
PTX_FLOAT_TYPES = {"f16", "f16x2", "bf16", "bf16x2", "f32", "f32x2", "f64"}
PTX_ROUNDING = {"rn", "rz", "rm", "rp", "rna"}


def run_tool(cmd, env, cwd=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd,
                       universal_newlines=True, errors="replace")
    return p.returncode, p.stdout, p.stderr


def arch_key(a):
    m = re.search(r"(\d+)", a)
    return (int(m.group(1)) if m else 0, a)


def join_targets(ts):
    return ", ".join(sorted(ts, key=arch_key))


def parse_list(text):
    """--list-elf --list-ptx -> (set of SASS archs, set of PTX archs as compute_NN)."""
    sass, ptx = set(), set()
    for line in text.splitlines():
        m = LIST_LINE.match(line.strip())
        a = m and LIST_ARCH.search(m.group(2))
        if a:
            if m.group(1) == "ELF":
                sass.add(a.group(1))
            else:
                ptx.add(a.group(1).replace("sm_", "compute_"))
    return sass, ptx


def parse_resources(text):
    """--dump-resource-usage -> list of (arch, function, {FIELD: int})."""
    out, arch, fn = [], None, None
    for line in text.splitlines():
        if line.startswith("Fatbin ptx code"):
            arch, fn = None, None
            continue
        m = ARCH_LINE.match(line)
        if m:
            arch, fn = m.group(1), None
            continue
        m = RES_FUNC.match(line)
        rest = m.group(2) if m else line
        if m and arch:
            fn = m.group(1)
        if fn and arch:
            fields = dict((k, int(v)) for k, v in RES_FIELD.findall(rest))
            if fields:
                out.append((arch, fn, fields))
                fn = None
    return out


class SassStats:
    __slots__ = ("fma", "fma_first", "const_moves", "divsqrt", "local_ops", "mem8", "mem8_first", "mem64",
                 "mem128")

    def __init__(self):
        self.fma = collections.Counter()   # opcode -> count
        self.fma_first = None              # first offending instruction
        self.const_moves = 0
        self.divsqrt = 0
        self.local_ops = 0
        self.mem8 = 0                      # byte-wide global/generic loads and stores
        self.mem8_first = None
        self.mem64 = 0                     # 8-byte ones
        self.mem128 = 0                    # 16-byte ones


def parse_nvdisasm(lines, arch=None):
    """nvdisasm output (an iterable of lines) -> (arch, {function: SassStats})."""
    stats, fn = {}, None
    for line in lines:
        if line.startswith(".text.") and line.rstrip().endswith(":"):
            fn = line.rstrip()[6:-1]
            stats.setdefault(fn, SassStats())
            continue
        if fn is None:
            m = TARGET_LINE.match(line)
            if m:
                arch = m.group(1)
            continue
        if "\t.section" in line or line.startswith(".section"):
            fn = None
            continue
        if not ("FMA" in line or "MUFU" in line or "LD" in line or "ST" in line):
            continue
        m = SASS_INSN.match(line)
        if not m:
            continue
        insn = PREDICATE.sub("", m.group(2))
        parts = insn.split(None, 1)
        op = parts[0]
        st = stats[fn]
        if FMA_OP.match(op):
            srcs = [s.strip() for s in (parts[1] if len(parts) > 1 else "").split(",")]
            if len(srcs) >= 3 and ZERO_REG.match(srcs[1]) and ZERO_REG.match(srcs[2]):
                st.const_moves += 1
                continue
            st.fma[op] += 1
            if st.fma_first is None:
                st.fma_first = "/*%s*/ %s" % (m.group(1), insn)
        elif DIVSQRT_OP.match(op):
            st.divsqrt += 1
        elif LOCAL_OP.match(op):
            st.local_ops += 1
        elif GLOBAL_OP.match(op):
            mods = op.split(".")[1:]
            if "U8" in mods or "S8" in mods:
                st.mem8 += 1
                if st.mem8_first is None:
                    st.mem8_first = "/*%s*/ %s" % (m.group(1), insn)
            elif "128" in mods:
                st.mem128 += 1
            elif "64" in mods:
                st.mem64 += 1
    return arch, stats


def template_elem_sizes(demangled):
    """'void k<float, short, f_x>(args)' -> [4, 2]: the sizes of the element types among the first template
    argument list (other arguments, functors, are skipped)."""
    b = demangled.find("<")
    if b < 0:
        return []
    depth, cur, args = 0, "", []
    for ch in demangled[b + 1:]:
        if ch == "<":
            depth += 1
        elif ch == ">":
            if depth == 0:
                args.append(cur)
                break
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(cur)
            cur = ""
            continue
        cur += ch
    return [ELEM_SIZE[t.strip()] for t in args if t.strip() in ELEM_SIZE]


def disassemble(co, nvdisasm, lib, env, jobs):
    """-> ({(arch, function): SassStats}, error message or None)."""
    stats = {}
    with tempfile.TemporaryDirectory(prefix="check_fatbin.") as d:
        rc, out, err = run_tool([co, "-xelf", "all", os.path.abspath(lib)], env, cwd=d)
        if rc != 0:
            return None, "`cuobjdump -xelf all` failed: %s" % (err.strip() or out.strip())
        cubins = []
        for path in glob.glob(os.path.join(d, "*.cubin")):
            with open(path, "rb") as f:
                if b".text." in f.read():        # modules without code (e.g. cudart's) need no nvdisasm
                    cubins.append(path)
        cubins.sort(key=os.path.getsize, reverse=True)

        def one(path):
            m = LIST_ARCH.search(path)
            p = subprocess.Popen([nvdisasm, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 universal_newlines=True, errors="replace", env=env)
            arch, st = parse_nvdisasm(p.stdout, m.group(1) if m else None)
            e = p.stderr.read()
            return path, p.wait(), e, arch, st

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for path, rc, e, arch, st in pool.map(one, cubins):
                if rc != 0:
                    return None, "nvdisasm %s failed: %s" % (os.path.basename(path), e.strip()[:300])
                for fn, s in st.items():
                    if (arch, fn) in stats:      # the same name in two modules of one arch: merge
                        t = stats[(arch, fn)]
                        t.fma.update(s.fma)
                        t.fma_first = t.fma_first or s.fma_first
                        t.const_moves += s.const_moves
                        t.divsqrt += s.divsqrt
                        t.local_ops += s.local_ops
                        t.mem8 += s.mem8
                        t.mem8_first = t.mem8_first or s.mem8_first
                        t.mem64 += s.mem64
                        t.mem128 += s.mem128
                    else:
                        stats[(arch, fn)] = s
    return stats, None


def parse_ptx(text):
    """-ptx -> (funcs, entries_per_arch). funcs: name -> {"ops": Counter('fused op'/'contractible op'),
    "calls": set of callees, "entry": bool}, over every .entry/.func of every embedded PTX."""
    funcs, per_arch = {}, collections.defaultdict(set)
    state = {"cur": None, "buf": []}

    def flush():
        cur = state["cur"]
        if cur is None:
            return
        rec = funcs[cur]
        for stmt in " ".join(state["buf"]).split(";"):
            stmt = stmt.strip().lstrip("{}").strip()
            stmt = re.sub(r"^[\w$]+:\s*", "", stmt)          # label
            stmt = re.sub(r"^@!?%\w+\s+", "", stmt)         # predicate
            if not stmt:
                continue
            op = stmt.split(None, 1)[0]
            if op.startswith("call"):
                m = PTX_CALL.match(stmt)
                if m:
                    rec["calls"].add(m.group(1))
                continue
            mods = op.split(".")
            if not PTX_FLOAT_TYPES.intersection(mods[1:]):
                continue
            if mods[0] in ("fma", "mad"):
                rec["ops"]["fused " + op] += 1
            elif mods[0] in ("mul", "add", "sub") and not PTX_ROUNDING.intersection(mods[1:]):
                rec["ops"]["contractible " + op] += 1
        state["cur"], state["buf"] = None, []

    arch = None
    for raw in text.splitlines():
        m = ARCH_LINE.match(raw)
        if m:
            flush()
            arch = m.group(1).replace("sm_", "compute_")
            continue
        line = raw.split("//", 1)[0]
        m = PTX_FUNC.match(line)
        if m:
            flush()
            name = m.group(2)
            rec = funcs.setdefault(name, {"ops": collections.Counter(), "calls": set(), "entry": False,
                                          "maxntid": None})
            rec["entry"] = rec["entry"] or m.group(1) == "entry"
            if m.group(1) == "entry":
                per_arch[arch].add(name)
            state["cur"] = name
            continue
        if state["cur"] is not None:
            m = PTX_MAXNTID.match(line)
            if m:
                n = 1
                for g in m.groups():
                    n *= int(g) if g else 1
                funcs[state["cur"]]["maxntid"] = n
                continue
            state["buf"].append(line)
    flush()
    return funcs, per_arch


def ptx_effective(funcs):
    """name -> Counter of 'op (in callee)' over the function and everything it calls."""
    memo = {}

    def walk(name, seen):
        if name in memo:
            return memo[name]
        c = collections.Counter(funcs[name]["ops"])
        for callee in funcs[name]["calls"]:
            if callee in funcs and callee not in seen:
                for k, v in walk(callee, seen | {callee}).items():
                    c[k if " (in " in k else "%s (in %s)" % (k, callee)] += v
        memo[name] = c
        return c

    return {n: walk(n, {n}) for n in funcs}


def base_name(demangled):
    """'void k_red_block<float>(red_args, red_part*)' -> 'k_red_block': the kernel's own identifier,
    without return type, namespaces, template arguments or parameters (the CUDA emulation names a
    launch the same way, from the kernel expression of AUG_LAUNCH)."""
    n = demangled.replace("(anonymous namespace)::", "")
    cut = len(n)
    for i, ch in enumerate(n):          # the first '<' or '(' ends the name
        if ch in "<(":
            cut = i
            break
    n = n[:cut].strip()
    n = n.split()[-1] if n.split() else n
    return n.split("::")[-1]


def block_registers(regs, threads):
    """Registers a block of `threads` threads takes: per thread rounded up to REG_UNIT, per warp."""
    per_thread = -(-regs // REG_UNIT) * REG_UNIT
    return per_thread * 32 * -(-threads // 32)


def registers_stale(text, fam):
    """Whether the emulation's register table `text` ("kernel registers" lines) is stale against the
    build's kernels `fam`: a listed count that differs, a listed kernel the build lacks, or a kernel of
    more than FREE_REGS registers that is not listed (smaller kernels may be absent: the module docstring)."""
    have = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit():
            return True
        have[parts[0]] = int(parts[1])
    for k, r in fam.items():
        regs = max(r["REG"].values())
        if have.get(k, regs if regs <= FREE_REGS else None) != regs:
            return True
    return any(k not in fam for k in have)


def demangle(names):
    names = sorted(names)
    tool = shutil.which("c++filt")
    if not tool or not names:
        return {n: n for n in names}
    p = subprocess.run([tool], input="\n".join(names) + "\n", stdout=subprocess.PIPE,
                       universal_newlines=True)
    out = p.stdout.splitlines()
    if p.returncode != 0 or len(out) != len(names):
        return {n: n for n in names}
    return dict(zip(names, out))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lib", metavar="LIB.so")
    ap.add_argument("--cuobjdump", required=True, help="path to cuobjdump")
    ap.add_argument("--nvdisasm", help="path to nvdisasm (default: beside cuobjdump, else on PATH)")
    ap.add_argument("--fma-allowed", default="fma", metavar="REGEX",
                    help="kernels whose mangled or demangled name matches (re.search) may fuse (default: fma)")
    ap.add_argument("--stack-allowed", metavar="REGEX",
                    help="kernels whose name matches may use a stack frame / local memory (default: none)")
    ap.add_argument("--sass-targets", default="sm_75,sm_80,sm_90,sm_100")
    ap.add_argument("--ptx-targets", default="compute_100")
    ap.add_argument("--max-shared", type=int, default=49152, help="static shared memory limit in bytes")
    ap.add_argument("--max-threads", type=int, default=1024,
                    help="threads per block a kernel without __launch_bounds__ may get (default 1024)")
    ap.add_argument("--targets-only", action="store_true",
                    help="check only that the SASS and PTX targets are embedded (no disassembly)")
    ap.add_argument("--kernels", action="store_true", help="print the per-kernel resource table")
    ap.add_argument("--write-registers", metavar="FILE", help="write 'kernel registers' lines for the emulation")
    ap.add_argument("--check-registers", metavar="FILE", help="fail when FILE differs from those lines")
    ap.add_argument("--vector-kernels", metavar="REGEX",
                    help="kernels (demangled name, re.search) that are contiguous fast paths: check 5")
    ap.add_argument("--vector-require", metavar="NAMES", default="",
                    help="comma-separated kernel base names that must exist (with --vector-kernels)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2, help="parallel nvdisasm runs")
    ap.add_argument("-v", "--verbose", action="store_true", help="also list every function per target")
    a = ap.parse_args(argv)

    try:
        allowed = re.compile(a.fma_allowed)
        stack_allowed = re.compile(a.stack_allowed) if a.stack_allowed else None
        vector_rx = re.compile(a.vector_kernels) if a.vector_kernels else None
    except re.error as e:
        print("check_fatbin: bad regex: %s" % e, file=sys.stderr)
        return 2
    if not os.path.isfile(a.lib):
        print("check_fatbin: no such file: %s" % a.lib, file=sys.stderr)
        return 2
    co = os.path.abspath(a.cuobjdump)   # -xelf runs in a temp dir
    if not (os.path.isfile(co) and os.access(co, os.X_OK)):
        print("check_fatbin: cuobjdump not found or not executable: %s" % co, file=sys.stderr)
        return 2
    nvdisasm = a.nvdisasm or os.path.join(os.path.dirname(os.path.abspath(co)), "nvdisasm")
    if not a.nvdisasm and not os.path.isfile(nvdisasm):
        nvdisasm = shutil.which("nvdisasm") or nvdisasm
    nvdisasm = os.path.abspath(nvdisasm)
    if not a.targets_only and not (os.path.isfile(nvdisasm) and os.access(nvdisasm, os.X_OK)):
        print("check_fatbin: nvdisasm not found (%s): install the nvidia-cuda-nvdisasm wheel "
              "(scripts/cuda_toolchain.sh prints AUG_NVDISASM) or pass --nvdisasm" % nvdisasm, file=sys.stderr)
        return 2
    env = dict(os.environ)
    base = os.path.basename(a.lib)

    # 1. what is embedded (fast), then resources, PTX and the disassembly in parallel.
    cmd = [co, "--list-elf", "--list-ptx", a.lib]
    rc, out, err = run_tool(cmd, env)
    if rc != 0 or "does not contain device code" in out + err:
        msg = (err.strip() or out.strip() or "exit status %d" % rc).splitlines()
        print("check_fatbin: `cuobjdump --list-elf --list-ptx %s` failed: %s" % (base, " / ".join(msg[:3])),
              file=sys.stderr)
        return 2
    sass_archs, ptx_archs = parse_list(out)
    if not sass_archs and not ptx_archs:
        print("check_fatbin: %s holds no fatbinary" % a.lib, file=sys.stderr)
        return 2
    if not ptx_archs:  # the first H200 run: 68 false violations from an sm_90-only module
        print("check_fatbin: %s embeds no PTX: each kernel's __launch_bounds__ (.maxntid) and whether the FMAs "
              "next to MUFU.RCP are a division's expansion are read from the PTX; build with a compute_NN "
              "target too (AUG_CUDA_ARCHS)" % base, file=sys.stderr)
        return 2
    if a.targets_only:
        want_sass = [t.strip() for t in a.sass_targets.split(",") if t.strip()]
        want_ptx = [t.strip() for t in a.ptx_targets.split(",") if t.strip()]
        missing = [t for t in want_sass if t not in sass_archs] + [t for t in want_ptx if t not in ptx_archs]
        print("check_fatbin: %s: SASS %s; PTX %s" % (base, join_targets(sass_archs) or "none",
                                                       join_targets(ptx_archs) or "none"))
        if missing:
            print("FAIL target: %s not embedded (required: SASS %s, PTX %s)" % (
                ", ".join(missing), a.sass_targets, a.ptx_targets))
            return 1
        return 0
    with ThreadPoolExecutor(max_workers=3) as pool:
        f_res = pool.submit(run_tool, [co, "--dump-resource-usage", a.lib], env)
        f_ptx = pool.submit(run_tool, [co, "-ptx", a.lib], env)
        f_sass = pool.submit(disassemble, co, nvdisasm, a.lib, env, max(1, a.jobs))
        (rc1, res_out, err1), (rc2, ptx_out, err2), (sass, sass_err) = f_res.result(), f_ptx.result(), f_sass.result()
    for rc_, what, e in ((rc1, "--dump-resource-usage", err1), (rc2, "-ptx", err2)):
        if rc_ != 0:
            print("check_fatbin: `cuobjdump %s %s` failed: %s" % (what, base, e.strip()[:300]), file=sys.stderr)
            return 2
    if sass_err:
        print("check_fatbin: %s" % sass_err, file=sys.stderr)
        return 2

    resources = parse_resources(res_out)
    ptx, ptx_entries = parse_ptx(ptx_out)
    ptx_eff = ptx_effective(ptx)

    names = {fn for _, fn, _ in resources} | {fn for _, fn in sass} | set(ptx)
    dem = demangle(names)

    def matches(rx, n):
        return bool(rx and (rx.search(n) or rx.search(dem[n])))

    fails = []                                   # (kind, subject, message)
    per_target_viol = collections.Counter()
    want_sass = [t.strip() for t in a.sass_targets.split(",") if t.strip()]
    want_ptx = [t.strip() for t in a.ptx_targets.split(",") if t.strip()]
    for t in want_sass:
        if t not in sass_archs:
            fails.append(("target", t, "no SASS for %s embedded (SASS: %s; PTX: %s) -> add -gencode arch=%s,code=%s"
                          % (t, join_targets(sass_archs) or "none", join_targets(ptx_archs) or "none",
                             t.replace("sm_", "compute_"), t)))
            per_target_viol[t] += 1
    for t in want_ptx:
        if t not in ptx_archs:
            fails.append(("target", t, "no PTX for %s embedded (PTX: %s) -> add -gencode arch=%s,code=%s" % (
                t, join_targets(ptx_archs) or "none", t, t)))
            per_target_viol[t] += 1

    # 2. resources, grouped per (kind, kernel) over the targets.
    res_bad = collections.defaultdict(dict)      # (kind, fn) -> {arch: value}
    table = collections.defaultdict(lambda: {"fns": set(), "REG": 0, "SHARED": 0, "STACK": 0, "LOCAL": 0})
    stack_ok = set()
    for arch, fn, f in resources:
        row = table[arch]
        row["fns"].add(fn)
        for k in ("REG", "SHARED", "STACK", "LOCAL"):
            row[k] = max(row[k], f.get(k, 0))
        if f.get("SHARED", 0) > a.max_shared:
            res_bad[("shared", fn)][arch] = f["SHARED"]
        for k in ("LOCAL", "STACK"):
            if f.get(k, 0) > 0:
                if matches(stack_allowed, fn):
                    stack_ok.add(dem[fn])
                else:
                    res_bad[(k.lower(), fn)][arch] = f[k]
    for (arch, fn), st in sass.items():
        table[arch]["fns"].add(fn)
        if st.local_ops and not matches(stack_allowed, fn) and \
                not any(arch in res_bad.get((k, fn), {}) for k in ("local", "stack")):
            res_bad[("ldst", fn)][arch] = st.local_ops
    # registers x threads of the largest launch
    def bound(fn):
        rec = ptx.get(fn)
        return rec["maxntid"] if rec and rec.get("maxntid") else a.max_threads
    for arch, fn, f in resources:
        regs = f.get("REG", 0)
        if regs and block_registers(regs, bound(fn)) > REGS_PER_SM_BLOCK:
            res_bad[("regs", fn)][arch] = regs
    for (kind, fn), by_arch in sorted(res_bad.items(), key=lambda kv: (kv[0][0], dem[kv[0][1]])):
        for t in by_arch:
            per_target_viol[t] += 1
        vals = ", ".join("%s %d" % (t, by_arch[t]) for t in sorted(by_arch, key=arch_key))
        lops = [sass[(t, fn)].local_ops for t in by_arch if (t, fn) in sass]
        lnote = " (%d LDL/STL in the SASS)" % max(lops) if lops and max(lops) else ""
        if kind == "local":
            msg = "local memory LOCAL bytes: %s%s" % (vals, lnote)
        elif kind == "stack":
            msg = ("stack frame STACK bytes: %s%s -> a per-thread array indexed at run time, a spill, a "
                   "non-inlined call or a math-library slow path (sin/cos/tan); -Xptxas -v,-warn-spills,"
                   "-warn-lmem-usage names it; --stack-allowed exempts" % (vals, lnote))
        elif kind == "shared":
            msg = "static shared memory SHARED bytes: %s > %d" % (vals, a.max_shared)
        elif kind == "regs":
            t = bound(fn)
            worst = max(by_arch.values())
            msg = ("registers REG: %s: a block of %d threads (%s) takes %d > %d registers -> "
                   "cudaErrorLaunchOutOfResources; add __launch_bounds__(%d) (ptxas then keeps to %d registers) "
                   "or launch fewer threads" % (
                       vals, t, "its __launch_bounds__" if t != a.max_threads else "--max-threads",
                       block_registers(worst, t), REGS_PER_SM_BLOCK, t,
                       REGS_PER_SM_BLOCK // (-(-t // 32) * 32) // REG_UNIT * REG_UNIT))
        else:
            msg = "local memory instructions LDL/STL: %s" % vals
        fails.append(("local" if kind == "ldst" else kind, dem[fn], msg))

    # 4. FMA.
    reached = set()
    for n, rec in ptx.items():
        if rec["entry"]:
            stack = [n]
            while stack:
                x = stack.pop()
                for c in ptx.get(x, {}).get("calls", ()):
                    if c in ptx and c not in reached:
                        reached.add(c)
                        stack.append(c)
    ptx_bad = {}
    for fn, rec in ptx.items():
        if matches(allowed, fn) or (not rec["entry"] and fn in reached):
            continue                              # a callee is reported through its kernels
        if ptx_eff[fn]:
            ptx_bad[fn] = ptx_eff[fn]
    fma_allowed_cnt, fma_exp_cnt = collections.Counter(), collections.Counter()
    sass_bad = collections.defaultdict(dict)     # fn -> {arch: SassStats}
    fma_ok_names = set()
    for (arch, fn), st in sass.items():
        n = sum(st.fma.values())
        if not n:
            continue
        if matches(allowed, fn):
            fma_allowed_cnt[arch] += n
            fma_ok_names.add(dem[fn])
        elif st.divsqrt and fn in ptx and not ptx_eff[fn] and ptx_archs:
            fma_exp_cnt[arch] += n
        else:
            sass_bad[fn][arch] = st
    for fn in sorted(set(sass_bad) | set(ptx_bad), key=lambda n: dem[n]):
        bits = []
        if fn in sass_bad:
            by = sass_bad[fn]
            for t in by:
                per_target_viol[t] += 1

            def fmt(c):
                return ", ".join("%s x%d" % (o, k) for o, k in sorted(c.items()))
            order = sorted(by, key=arch_key)
            if all(by[t].fma == by[order[0]].fma for t in order):
                counts = "%s: %s%s" % (join_targets(by), fmt(by[order[0]].fma), " each" if len(by) > 1 else "")
            else:
                counts = "; ".join("%s: %s" % (t, fmt(by[t].fma)) for t in order)
            bits.append("SASS %s (e.g. %s: %s)" % (counts, order[0], by[order[0]].fma_first))
        if fn in ptx_bad:
            for t in want_ptx:
                per_target_viol[t] += 1
            bits.append("PTX: %s" % ", ".join("%s x%d" % (o, k) for o, k in sorted(ptx_bad[fn].items())))
        fails.append(("fma", dem[fn], "; ".join(bits) + " -> a contraction: build with --fmad=false (or use "
                      "__fmul_rn/__fadd_rn, __hmul_rn/__hadd_rn); an explicit fmaf() or a math-library call "
                      "(expf, powf, fmodf...) fuses too: only kernels matching --fma-allowed %r may" % a.fma_allowed))

    # 5. the vector fast paths.
    if vector_rx:
        bad8, no128 = collections.defaultdict(list), collections.defaultdict(list)
        for (arch, fn), st in sass.items():
            if not vector_rx.search(dem[fn]):
                continue
            sizes = template_elem_sizes(dem[fn])
            if st.mem8 and sizes and min(sizes) >= 2:
                bad8[fn].append(arch)
            if not (st.mem128 if sizes and max(sizes) >= 8 else st.mem128 + st.mem64):
                no128[fn].append(arch)
        for fn in sorted(bad8, key=lambda n: dem[n]):
            st = sass[(sorted(bad8[fn], key=arch_key)[0], fn)]
            for t in bad8[fn]:
                per_target_viol[t] += 1
            fails.append(("vector", dem[fn], "%s: %d byte-wide global load(s)/store(s) in a fast path of 2-byte or "
                          "wider types (e.g. %s) -> typed accesses through an aligned pointer (cuda/vec.cuh)"
                          % (join_targets(bad8[fn]), st.mem8, st.mem8_first)))
        for fn in sorted(no128, key=lambda n: dem[n]):
            for t in no128[fn]:
                per_target_viol[t] += 1
            fails.append(("vector", dem[fn], "%s: no vector global load or store wider than its elements (8 or 16 "
                          "bytes): the contiguous fast path is not vectorised" % join_targets(no128[fn])))
        have = {base_name(dem[fn]) for _, fn in sass}
        for name in [n.strip() for n in a.vector_require.split(",") if n.strip()]:
            if name not in have:
                fails.append(("vector", name, "no kernel %s in the module: the contiguous fast path is missing"
                              % name))

    # Table.
    hdr = "%-13s %9s %7s %10s %9s %9s %11s %11s %10s" % (
        "target", "functions", "max REG", "max SHARED", "max STACK", "max LOCAL", "FMA in fma", "FMA in div",
        "violations")
    print("check_fatbin: %s" % a.lib)
    print(hdr)
    print("-" * len(hdr))
    extra = False
    for t in sorted(set(table) | sass_archs | set(want_sass), key=arch_key):
        mark = "" if t in want_sass else "*"
        extra = extra or bool(mark)
        if t not in sass_archs:
            print("%-13s %9s %61s %10d" % (t, "missing", "", per_target_viol[t]))
            continue
        row = table[t]
        print("%-13s %9d %7d %10d %9d %9d %11d %11d %10d" % (
            t + mark, len(row["fns"]), row["REG"], row["SHARED"], row["STACK"], row["LOCAL"],
            fma_allowed_cnt[t], fma_exp_cnt[t], per_target_viol[t]))
    for t in sorted(ptx_archs | set(want_ptx), key=arch_key):
        mark = "" if t in want_ptx else "*"
        extra = extra or bool(mark)
        shown = ("%d PTX" % len(ptx_entries.get(t, ()))) if t in ptx_archs else "missing"
        print("%-13s %9s %61s %10d" % (t + mark, shown, "", per_target_viol[t]))
    if extra:
        print("* embedded but not required (--sass-targets %s, --ptx-targets %s)" % (a.sass_targets, a.ptx_targets))
    if fma_ok_names:
        print("FMA allowed by --fma-allowed %r in: %s" % (a.fma_allowed, ", ".join(sorted(fma_ok_names))))
    if stack_ok:
        print("stack allowed by --stack-allowed %r in: %s" % (a.stack_allowed, ", ".join(sorted(stack_ok))))
    if a.verbose:
        for t in sorted(table, key=arch_key):
            print("%s: %s" % (t, ", ".join(sorted(dem[f] for f in table[t]["fns"]))))

    # Per kernel (a template's instantiations together): registers per target, shared, stack, the
    # largest launch and the registers its block takes.
    fam = collections.OrderedDict()
    for arch, fn, f in resources:
        if fn not in ptx or not ptx[fn]["entry"]:
            continue                                 # device functions: counted in their kernels
        k = base_name(dem[fn])
        r = fam.setdefault(k, {"inst": set(), "REG": {}, "SHARED": 0, "STACK": 0, "threads": 0, "block": 0})
        r["inst"].add(fn)
        r["REG"][arch] = max(r["REG"].get(arch, 0), f.get("REG", 0))
        r["SHARED"] = max(r["SHARED"], f.get("SHARED", 0))
        r["STACK"] = max(r["STACK"], f.get("STACK", 0))
        r["threads"] = max(r["threads"], bound(fn))
        r["block"] = max(r["block"], block_registers(f.get("REG", 0), bound(fn)))
    if a.kernels:
        archs = sorted({t for r in fam.values() for t in r["REG"]}, key=arch_key)
        w = max([len(k) for k in fam] + [6])
        head = "%-*s %4s %s %7s %6s %7s %12s" % (w, "kernel", "inst", " ".join("%6s" % t for t in archs),
                                                  "SHARED", "STACK", "threads", "block regs")
        print("REG per target; threads: the largest launch (__launch_bounds__, else --max-threads %d); "
              "block regs: its registers (limit %d)" % (a.max_threads, REGS_PER_SM_BLOCK))
        print(head)
        print("-" * len(head))
        for k in sorted(fam):
            r = fam[k]
            print("%-*s %4d %s %7d %6d %7d %12d%s" % (
                w, k, len(r["inst"]), " ".join("%6d" % r["REG"].get(t, 0) for t in archs), r["SHARED"],
                r["STACK"], r["threads"], r["block"], "  FAIL" if r["block"] > REGS_PER_SM_BLOCK else ""))
    table_text = "".join("%s %d\n" % (k, max(fam[k]["REG"].values())) for k in sorted(fam))
    if a.write_registers:
        with open(a.write_registers, "w") as f:
            f.write(table_text)
    if a.check_registers:
        try:
            with open(a.check_registers) as f:
                have = f.read()
        except OSError as e:
            have = "(%s)" % e
        if registers_stale(have, fam):
            fails.append(("regs", a.check_registers, "the emulation's register table is stale: regenerate it "
                          "with --write-registers %s" % a.check_registers))

    if fails:
        for kind, subject, msg in fails:
            print("FAIL %-6s %s: %s" % (kind, subject, msg))
        print("check_fatbin: %d violation(s) in %s" % (len(fails), a.lib))
        return 1
    print("check_fatbin: OK (%d SASS targets, %d PTX, %d functions)" % (
        len(sass_archs), len(ptx_archs), len({fn for _, fn, _ in resources} | {fn for _, fn in sass})))
    return 0


if __name__ == "__main__":
    sys.exit(main())
