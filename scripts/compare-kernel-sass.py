#!/usr/bin/env python3
# Compares the machine code of every kernel of two cubins, byte for byte: each kernel's `.text.<kernel>` section (its
# SASS) and `.nv.info.<kernel>` section (registers, barriers, parameter layout), read straight from the ELF64 file.
# It must never call a CUDA tool or need a GPU (standard library only), and never call two kernels equal that it did
# not compare.
#
# Usage: scripts/compare-kernel-sass.py BEFORE AFTER [--json]
#   BEFORE, AFTER: a cubin, or a kseek build cache entry (<cache dir>/<cache_key>.kbuild; `kseek --json --cache-dir D
#   build FILE --plugin P` prints the cache_key), whose cubin is taken after its checksum is verified.
# Exit status: 0 every kernel's text and info are byte-identical and both files hold the same kernels; 1 some kernel
# differs or is in one file only; 2 a file could not be read as a cubin or a cache entry.
import hashlib
import json
import struct
import sys

KBUILD_MAGIC = b"KSEEK-COMPILE-OUTPUT 1\n"
ELF_MAGIC = b"\x7fELF"
ELFCLASS64, ELFDATA2LSB = 2, 1
SHT_NOBITS = 8
# SASS instructions are 16 bytes on every architecture kseek builds for (sm_70 and later).
INSTRUCTION_BYTES = 16


class InputError(Exception):
    pass


def cubin_of(path):
    """The cubin bytes of `path`: the file itself, or the cubin of a kseek build cache entry."""
    with open(path, "rb") as f:
        data = f.read()
    if data.startswith(ELF_MAGIC):
        return data
    if not data.startswith(KBUILD_MAGIC):
        raise InputError(f"{path}: neither an ELF file nor a kseek build cache entry (first bytes {data[:8]!r})")
    header_end = data.find(b"\n", len(KBUILD_MAGIC))
    if header_end < 0:
        raise InputError(f"{path}: cache entry without a header line")
    header = json.loads(data[len(KBUILD_MAGIC):header_end])
    payload = data[header_end + 1:]
    ptx, cubin, log = header["ptx_bytes"], header["cubin_bytes"], header["log_bytes"]
    if len(payload) != ptx + cubin + log:
        raise InputError(f"{path}: payload is {len(payload)} bytes, header says {ptx + cubin + log}")
    if hashlib.sha256(payload).hexdigest() != header["payload_sha256"]:
        raise InputError(f"{path}: payload checksum mismatch")
    if cubin == 0:
        raise InputError(f"{path}: the cache entry holds no cubin (status {header.get('status')})")
    return payload[ptx:ptx + cubin]


def kernel_sections(path):
    """{kernel: {"text": bytes, "info": bytes or None}} from the ELF64 section headers of the cubin of `path`."""
    elf = cubin_of(path)
    if len(elf) < 64 or elf[4] != ELFCLASS64 or elf[5] != ELFDATA2LSB:
        raise InputError(f"{path}: not a little-endian ELF64 file")
    (shoff,) = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    if shentsize != 64 or shoff + shnum * 64 > len(elf) or shstrndx >= shnum:
        raise InputError(f"{path}: section header table out of bounds ({shnum} entries at {shoff})")
    headers = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * 64) for i in range(shnum)]
    names_offset, names_size = headers[shstrndx][4], headers[shstrndx][5]
    names = elf[names_offset:names_offset + names_size]

    def contents(h):
        sh_type, offset, size = h[1], h[4], h[5]
        if sh_type == SHT_NOBITS:
            return b""
        if offset + size > len(elf):
            raise InputError(f"{path}: a section runs past the end of the file")
        return elf[offset:offset + size]

    sections = {}
    for h in headers:
        end = names.find(b"\0", h[0])
        sections[names[h[0]:end].decode("ascii", "replace")] = h
    kernels = {}
    for name, h in sections.items():
        if name.startswith(".text."):
            kernel = name[len(".text."):]
            info = sections.get(".nv.info." + kernel)
            kernels[kernel] = {"text": contents(h), "info": contents(info) if info is not None else None}
    if not kernels:
        raise InputError(f"{path}: no .text.<kernel> section")
    return kernels


def text_difference(a, b):
    """How two texts differ, in instructions: the span between their common prefix and common suffix."""
    ia, ib = len(a) // INSTRUCTION_BYTES, len(b) // INSTRUCTION_BYTES
    insn = lambda t, i: t[i * INSTRUCTION_BYTES:(i + 1) * INSTRUCTION_BYTES]
    prefix = 0
    while prefix < min(ia, ib) and insn(a, prefix) == insn(b, prefix):
        prefix += 1
    suffix = 0
    while suffix < min(ia, ib) - prefix and insn(a, ia - 1 - suffix) == insn(b, ib - 1 - suffix):
        suffix += 1
    changed_a, changed_b = ia - prefix - suffix, ib - prefix - suffix
    if ia == ib:
        # Same length: count the instructions that differ in place (branch targets inside a moved block count too).
        in_place = sum(1 for i in range(prefix, ia - suffix) if insn(a, i) != insn(b, i))
        return {"instructions_before": ia, "instructions_after": ib, "first_difference": prefix,
                "differing_in_place": in_place}
    return {"instructions_before": ia, "instructions_after": ib, "first_difference": prefix,
            "changed_span_before": changed_a, "changed_span_after": changed_b}


def compare(before_path, after_path):
    before, after = kernel_sections(before_path), kernel_sections(after_path)
    rows = []
    for kernel in sorted(set(before) | set(after)):
        if kernel not in after or kernel not in before:
            rows.append({"kernel": kernel, "status": "only before" if kernel in before else "only after"})
            continue
        b, a = before[kernel], after[kernel]
        row = {"kernel": kernel, "text_bytes_before": len(b["text"]), "text_bytes_after": len(a["text"]),
               "text_identical": b["text"] == a["text"], "info_identical": b["info"] == a["info"]}
        if not row["text_identical"]:
            row.update(text_difference(b["text"], a["text"]))
        row["status"] = "identical" if row["text_identical"] and row["info_identical"] else "differs"
        rows.append(row)
    return rows


def describe(row):
    if row["status"] != "differs":
        return row["status"]
    if row["text_identical"]:
        return "text identical, .nv.info differs"
    if "differing_in_place" in row:
        return (f"text differs: {row['differing_in_place']} of {row['instructions_before']} instructions "
                f"(first at instruction {row['first_difference']})")
    return (f"text differs: {row['instructions_before']} -> {row['instructions_after']} instructions, "
            f"{row['changed_span_before']} replaced by {row['changed_span_after']} "
            f"from instruction {row['first_difference']}")


def main(argv):
    args = [a for a in argv[1:] if a != "--json"]
    if len(args) != 2:
        print("usage: compare-kernel-sass.py BEFORE AFTER [--json]", file=sys.stderr)
        return 2
    try:
        rows = compare(args[0], args[1])
    except (OSError, InputError, ValueError, KeyError, struct.error) as e:
        print(f"compare-kernel-sass: {e}", file=sys.stderr)
        return 2
    identical = sum(1 for r in rows if r["status"] == "identical")
    if "--json" in argv[1:]:
        print(json.dumps({"kernels": rows, "identical": identical, "total": len(rows)}, indent=1))
    else:
        width = max(len(r["kernel"]) for r in rows)
        for r in rows:
            size = (f"{r['text_bytes_before']:>8} -> {r['text_bytes_after']:>8} B" if "text_bytes_before" in r
                    else " " * 23)
            print(f"{r['kernel']:<{width}}  {size}  {describe(r)}")
        print(f"{identical} of {len(rows)} kernels byte-identical (.text and .nv.info)")
    return 0 if identical == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
