"""The gpulab command line: opening the window parses without the subcommands; commands parse as before."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gpulab import cli


def test_opening_the_window_parses_without_importing_any_subcommand_module():
    code = (
        "import sys; from gpulab import cli; a = cli.parse(['--panel', 'warp', '--lang', 'zh']); "
        "print(a.command, a.panel, a.lang, [m for m in cli.COMMAND_MODULES if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["None", "warp", "zh", "[]"]


def test_a_command_after_window_options_is_parsed_by_the_whole_command_line():
    args = cli.parse(["list"])
    assert args.command == "list" and callable(args.func)


@pytest.mark.parametrize("argv", [["--lang", "xx"], ["--no-such-option"], ["--panel"]])
def test_a_mistake_in_the_window_options_gets_the_whole_usage_message(argv, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.parse(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "COMMAND ..." in err and "gpulab: error:" in err


def test_help_lists_the_commands_too(capsys):
    with pytest.raises(SystemExit):
        cli.parse(["--help"])
    out = capsys.readouterr().out
    assert "--screenshot PATH" in out and "emulate" in out and "validate" in out
