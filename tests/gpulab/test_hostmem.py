"""Host memory facts: cache sizes from a (fake) sysfs tree, the sysconf fallback, DMI rates, never raising."""

import struct

import pytest

from gpulab import hostmem


def fake_cache(root, entries):
    """A sysfs cache folder: index0, index1... each with level, type and size files."""
    for i, (level, kind, size) in enumerate(entries):
        folder = root / f"index{i}"
        folder.mkdir(parents=True)
        (folder / "level").write_text(f"{level}\n")
        (folder / "type").write_text(f"{kind}\n")
        (folder / "size").write_text(f"{size}\n")
    return root


def test_sysfs_gives_the_data_and_unified_caches_by_level_without_the_instruction_cache(tmp_path):
    root = fake_cache(tmp_path / "cache", [(1, "Data", "48K"), (1, "Instruction", "32K"), (2, "Unified", "2048K"),
                                           (3, "Unified", "36M")])  # fmt: skip
    caches, source = hostmem.cpu_caches(root)
    assert source == "sysfs"
    assert [(c.name, c.kind, c.size_bytes) for c in caches] == [
        ("L1", "Data", 48 << 10), ("L2", "Unified", 2 << 20), ("L3", "Unified", 36 << 20)]  # fmt: skip


def test_unreadable_or_odd_entries_are_skipped_not_raised(tmp_path):
    root = fake_cache(tmp_path / "cache", [(1, "Data", "32K"), ("x", "Unified", "1M"), (2, "Unified", "lots"),
                                           (3, "Unified", "0K")])  # fmt: skip
    (root / "index4").mkdir()  # no files at all
    caches = hostmem.caches_from_sysfs(root)
    assert [(c.level, c.size_bytes) for c in caches] == [(1, 32 << 10)]


def test_without_sysfs_linux_falls_back_to_sysconf(tmp_path, monkeypatch):
    monkeypatch.setattr(hostmem.sys, "platform", "linux")
    sizes = {188: 32768, 191: 1 << 20, 194: -1, 197: 0}
    monkeypatch.setattr(hostmem.os, "sysconf", lambda name: sizes[name])
    caches, source = hostmem.cpu_caches(tmp_path / "missing")
    assert source == "sysconf"
    assert [(c.name, c.size_bytes) for c in caches] == [("L1", 32768), ("L2", 1 << 20)]


def test_elsewhere_the_caches_are_not_available_and_nothing_raises(tmp_path, monkeypatch):
    monkeypatch.setattr(hostmem.sys, "platform", "darwin")
    caches, source = hostmem.cpu_caches(tmp_path / "missing")
    assert (caches, source) == ((), "not available")
    monkeypatch.setattr(hostmem.sys, "platform", "linux")

    def refuse(_name):
        raise ValueError("unrecognized configuration name")

    monkeypatch.setattr(hostmem.os, "sysconf", refuse)
    assert hostmem.cpu_caches(tmp_path / "missing") == ((), "not available")
    memory = hostmem.host_memory(tmp_path / "missing", tmp_path / "no-dmi")
    assert memory.last_level_bytes is None and memory.dram_theoretical_gb_s is None


@pytest.mark.parametrize(("text", "size"), [("32K", 32768), ("1M", 1 << 20), ("512", 512), ("2G", 2 << 30),
                                            ("", None), ("K", None), ("-4K", None)])  # fmt: skip
def test_sysfs_sizes_are_read_with_their_suffix(text, size):
    assert hostmem.parse_size(text) == size


def dmi_module(speed_mts, width_bits=64, size=16384, configured=0):
    """An SMBIOS type-17 record (0x28 bytes) with the fields the rate needs."""
    raw = bytearray(0x28)
    raw[0], raw[1] = 17, 0x28
    struct.pack_into("<H", raw, 0x0A, width_bits)
    struct.pack_into("<H", raw, 0x0C, size)
    struct.pack_into("<H", raw, 0x15, speed_mts)
    struct.pack_into("<H", raw, 0x20, configured)
    return bytes(raw)


def test_the_dram_rate_adds_every_installed_module(tmp_path):
    for i, raw in enumerate([dmi_module(3200), dmi_module(4800, configured=3200), dmi_module(3200, size=0)]):
        (tmp_path / f"17-{i}").mkdir()
        (tmp_path / f"17-{i}" / "raw").write_bytes(raw)
    assert hostmem.dram_theoretical_gb_s(tmp_path) == pytest.approx(2 * 25.6)  # the empty slot adds nothing


def test_an_unreadable_firmware_table_gives_no_dram_rate(tmp_path):
    (tmp_path / "17-0").mkdir()  # the raw file missing, as when only root may read it
    assert hostmem.dram_theoretical_gb_s(tmp_path) is None
    assert hostmem.dram_theoretical_gb_s(tmp_path / "absent") is None


def test_this_machine_answers_without_raising():
    memory = hostmem.host_memory()
    assert memory.caches_source in ("sysfs", "sysconf", "not available")
    assert set(memory.as_dict()) == {"caches", "caches_source", "dram_theoretical_gb_s", "dram_source"}


@pytest.mark.parametrize(("n", "text"), [(4096, "4 KiB"), (1 << 30, "1 GiB"), (3 << 29, "1.5 GiB"), (100, "100 B")])
def test_byte_counts_read_as_people_write_them(n, text):
    assert hostmem.bytes_text(n) == text
