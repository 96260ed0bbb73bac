#!/usr/bin/env python3
# Checks scripts/compare-kernel-sass.py on small hand-built ELF64 files and cache entries: equal kernels pass, a
# changed instruction, a changed .nv.info, a longer text, a missing kernel and a corrupt cache entry are each caught.
# It must never need a GPU or a CUDA tool: the cubins are written here, section by section.
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(sys.argv[1], "scripts", "compare-kernel-sass.py")


def elf64(sections):
    """A minimal little-endian ELF64 file holding `sections` ({name: bytes}) and a section name table."""
    names = b"\0.shstrtab\0"
    name_offsets = {}
    for name in sections:
        name_offsets[name] = len(names)
        names += name.encode() + b"\0"
    body = b""
    layout = []  # (name offset, type, file offset, size)
    for name, data in [(".shstrtab", names)] + list(sections.items()):
        layout.append((1 if name == ".shstrtab" else name_offsets[name], 3 if name == ".shstrtab" else 1,
                       64 + len(body), len(data)))
        body += data
    shoff = 64 + len(body)
    header = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    header += struct.pack("<HHIQQQIHHHHHH", 2, 190, 1, 0, 0, shoff, 0, 64, 0, 0, 64, len(layout) + 1, 1)
    table = bytes(64)  # the null section
    for name_offset, sh_type, offset, size in layout:
        table += struct.pack("<IIQQQQIIQQ", name_offset, sh_type, 0, 0, offset, size, 0, 0, 16, 0)
    return header + body + table


def kbuild(cubin, corrupt=False):
    """A kseek build cache entry around `cubin` (layout: core/src/build/compile_output_codec.cpp)."""
    ptx, log = b"// ptx\n", b"log\n"
    payload = ptx + cubin + log
    digest = hashlib.sha256(payload).hexdigest()
    header = {"status": "OK", "ptx_bytes": len(ptx), "cubin_bytes": len(cubin), "log_bytes": len(log),
              "payload_sha256": digest}
    if corrupt:
        payload = payload[:-1] + b"X"
    return b"KSEEK-COMPILE-OUTPUT 1\n" + json.dumps(header).encode() + b"\n" + payload


def text(*words):
    return b"".join(struct.pack("<QQ", w, 0) for w in words)


def run(folder, before, after):
    paths = []
    for tag, data in (("before", before), ("after", after)):
        path = os.path.join(folder, tag)
        with open(path, "wb") as f:
            f.write(data)
        paths.append(path)
    result = subprocess.run([sys.executable, SCRIPT, *paths, "--json"], capture_output=True, text=True)
    report = json.loads(result.stdout) if result.returncode in (0, 1) else None
    return result.returncode, report, result.stderr


failures = []


def expect(what, condition):
    if not condition:
        failures.append(what)
        print(f"FAILED: {what}")


base = {".text.k1": text(1, 2, 3), ".nv.info.k1": b"\x04\x2f\x08\x00", ".text.k2": text(7, 8)}
with tempfile.TemporaryDirectory() as folder:
    rc, report, _ = run(folder, elf64(base), kbuild(elf64(base)))
    expect("equal kernels (cubin against cache entry) exit 0", rc == 0)
    expect("equal kernels are all identical", report and report["identical"] == report["total"] == 2)

    changed = dict(base, **{".text.k1": text(1, 9, 3)})
    rc, report, _ = run(folder, elf64(base), elf64(changed))
    k1 = next(r for r in report["kernels"] if r["kernel"] == "k1") if report else {}
    expect("a changed instruction exits 1", rc == 1)
    expect("a changed instruction is counted once, at instruction 1",
           k1.get("differing_in_place") == 1 and k1.get("first_difference") == 1)
    expect("the unchanged kernel stays identical", report and report["identical"] == 1)

    rc, report, _ = run(folder, elf64(base), elf64(dict(base, **{".nv.info.k1": b"\x04\x2f\x08\x01"})))
    expect("a changed .nv.info (registers) exits 1 although the text is equal", rc == 1)

    rc, report, _ = run(folder, elf64(base), elf64(dict(base, **{".text.k2": text(7, 5, 8)})))
    k2 = next(r for r in report["kernels"] if r["kernel"] == "k2") if report else {}
    expect("a longer text is one inserted instruction",
           rc == 1 and k2.get("changed_span_before") == 0 and k2.get("changed_span_after") == 1)

    rc, report, _ = run(folder, elf64(base), elf64({".text.k1": base[".text.k1"], ".nv.info.k1": base[".nv.info.k1"]}))
    expect("a kernel in one file only exits 1", rc == 1 and report and report["kernels"][1]["status"] == "only before")

    rc, _, stderr = run(folder, kbuild(elf64(base), corrupt=True), elf64(base))
    expect("a corrupt cache entry exits 2 and says why", rc == 2 and "checksum" in stderr)

print(f"{len(failures)} failed" if failures else "all checks passed")
sys.exit(1 if failures else 0)
