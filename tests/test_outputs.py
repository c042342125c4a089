"""What compilescope writes is new: never over the user's files, never through a link.

The rules of compilescope.outputs on real files, then `compilescope run` as a user meets them
(real subprocesses): paths fixed where run started, the program and the files it names left
alone, links refused, the trace locked while written.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from compilescope.outputs import (
    OutputError,
    being_written,
    create_private,
    is_ours,
    leftovers,
    other_name,
    publish,
    refusal,
    write_text,
)
from conftest import run_cli

HELLO = "print('hello from the program')\n"


def test_new_files_appear_whole_and_with_the_users_permissions(tmp_path: Path) -> None:
    target = tmp_path / "compilescope-x.json"
    write_text(target, '{"schema": "compilescope/1"}', "the session")
    assert json.loads(target.read_text()) == {"schema": "compilescope/1"}
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask
    assert [p.name for p in tmp_path.iterdir()] == ["compilescope-x.json"]  # no temporary left


def test_a_file_of_ours_is_replaced_and_someone_elses_is_not(tmp_path: Path) -> None:
    ours, theirs = tmp_path / "a.json", tmp_path / "b.json"
    write_text(ours, '{"schema": "compilescope/1", "n": 1}')
    write_text(ours, '{"schema": "compilescope/1", "n": 2}')
    assert json.loads(ours.read_text())["n"] == 2
    theirs.write_text('{"weights": [1, 2]}')
    with pytest.raises(OutputError, match="a file compilescope did not write"):
        write_text(theirs, '{"schema": "compilescope/1"}', "the session")
    assert theirs.read_text() == '{"weights": [1, 2]}'


def test_links_folders_and_special_files_are_refused(tmp_path: Path) -> None:
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me")
    link = tmp_path / "compilescope-x.log"
    link.symlink_to(precious)
    assert refusal(link) == f"it is a symbolic link (to {precious})"
    with pytest.raises(OutputError):
        write_text(link, "x")
    with pytest.raises(OutputError):
        create_private(link)
    assert precious.read_text() == "keep me"
    assert refusal(tmp_path) == "it is a folder"
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert refusal(fifo) == "it is a special file (a device, pipe or socket)"
    assert refusal(tmp_path / "missing" / "x.json") == f"its folder {tmp_path / 'missing'} does not exist"


def test_each_kind_of_file_compilescope_writes_is_recognised(tmp_path: Path) -> None:
    from compilescope.render.html import write_html
    from compilescope.session.model import Session

    session = tmp_path / "s.json"
    Session().save(str(session))
    report = write_html(Session(), tmp_path / "r.html")
    from compilescope.record.writer import TraceFileWriter

    writer = TraceFileWriter(tmp_path / "t.log")
    writer.write_record("compilescope_capture", {"pid": 1})
    writer.close()
    assert writer.publish() == str(tmp_path / "t.log")
    python_file = tmp_path / "01_f.py"
    write_text(python_file, "# compilescope: what torch.compile made of f\n")
    for path in (session, report, tmp_path / "t.log", python_file):
        assert is_ours(path), path
    (tmp_path / "mine.py").write_text("# compilescope is great\n")
    assert not is_ours(tmp_path / "mine.py")


def test_a_trace_being_written_is_private_and_kept_when_its_writer_dies(tmp_path: Path) -> None:
    trace = tmp_path / "t.log"
    # GIVEN another process that is writing a trace (a hidden file beside its name, locked)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
            import os, time
            from compilescope.outputs import create_private
            fd, name = create_private({str(trace)!r})
            os.write(fd, b'V1201 10:00:00.000000 1 compilescope/capture.py:0] {{"compilescope_capture": {{}}}}\\n')
            print(name, flush=True)
            time.sleep(60)
            """
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        private = Path(holder.stdout.readline().strip())
        # THEN nothing is at the name the program could open, the writer is seen, and a later
        # run leaves its file alone
        assert private.parent == tmp_path and private.name.startswith(".t.log.") and private.name.endswith(".partial")
        assert not trace.exists() and being_written(trace)
        assert leftovers(tmp_path, ["t.log"]) == [] and private.exists()
    finally:
        holder.kill()
        holder.wait()
    # once that process is gone (killed), the next run keeps what it wrote, under its own name
    assert not being_written(trace)
    assert leftovers(tmp_path, ["t.log"]) == [str(tmp_path / "t.unfinished.log")]
    assert is_ours(tmp_path / "t.unfinished.log") and not private.exists()
    # and a finished file is published at its name, or beside a file that is not ours
    fd, name = create_private(trace)
    os.write(fd, b"V1201 10:00:00.000000 1 compilescope/capture.py:0] {}\n")
    os.close(fd)
    assert publish(name, trace) == str(trace) and not Path(name).exists()
    fd, name = create_private(tmp_path / "u.log")
    os.close(fd)
    (tmp_path / "u.log").write_text("the user's")  # (the program made it while ours was written)
    assert publish(name, tmp_path / "u.log") == str(tmp_path / f"u.pid{os.getpid()}.log")
    assert (tmp_path / "u.log").read_text() == "the user's"
    assert other_name(trace, "7") == str(tmp_path / "t.7.log")


# ---- compilescope run ---------------------------------------------------------------------


def test_a_program_that_changes_folder_keeps_its_session(tmp_path: Path) -> None:
    # GIVEN a program that moves into a folder of its own, as Hydra does
    (tmp_path / "chd.py").write_text(
        textwrap.dedent(
            """
        import os, torch
        os.makedirs("outputs/run1")
        os.chdir("outputs/run1")
        torch.compile(lambda x: x.sin() + 1, backend="eager")(torch.ones(2))
        print("in", os.getcwd())
        """
        )
    )
    plain = subprocess.run([sys.executable, "chd.py"], cwd=tmp_path, capture_output=True, text=True)
    import shutil

    shutil.rmtree(tmp_path / "outputs")
    result = run_cli("run", "chd.py", cwd=tmp_path)
    # THEN it ends as under python, and everything is saved where run started
    assert (result.returncode, result.stdout) == (plain.returncode, plain.stdout) == (0, f"in {tmp_path}/outputs/run1\n")
    for name in ("compilescope-chd.json", "compilescope-chd.html", "compilescope-chd.log"):
        assert (tmp_path / name).is_file(), name
    assert "Saved the session to compilescope-chd.json" in result.stderr
    assert not list((tmp_path / "outputs" / "run1").iterdir())
    session = json.loads((tmp_path / "compilescope-chd.json").read_text())
    assert session["program"]["exit_status"] == 0
    assert session["frames"][0]["compiles"][0]["graphs"][0]["ops"] == ["sin", "add"]
    assert session["trace_files"] == [str(tmp_path / "compilescope-chd.log")]


def test_the_program_and_the_files_it_names_are_never_written(tmp_path: Path) -> None:
    script = tmp_path / "y.py"
    script.write_text(HELLO)
    for option in ("--trace", "--json", "--html"):
        result = run_cli("run", option, "y.py", "y.py", cwd=tmp_path)
        assert result.returncode == 2 and result.stdout == ""  # refused before the program ran
        assert f"{option} {script} is the program itself" in result.stderr
        assert "Traceback" not in result.stderr
    assert script.read_text() == HELLO
    named = run_cli("run", "--json", "data.json", "y.py", "--config=data.json", cwd=tmp_path)
    assert named.returncode == 2 and "is named in the program's arguments" in named.stderr
    (tmp_path / "notes.json").write_text("[1, 2]")
    theirs = run_cli("run", "--json", "notes.json", "y.py", cwd=tmp_path)
    assert theirs.returncode == 2
    assert (
        f"will not write to {tmp_path / 'notes.json'}: it is a file compilescope did not write; choose another path with --json"
        in theirs.stderr
    )
    assert (tmp_path / "notes.json").read_text() == "[1, 2]"
    same = run_cli("run", "--json", "a.json", "--html", "a.json", "y.py", cwd=tmp_path)
    assert same.returncode == 2 and "--json and --html name the same file" in same.stderr


def test_a_planted_link_is_never_followed(tmp_path: Path) -> None:
    (tmp_path / "x.py").write_text(HELLO)
    target = tmp_path / "elsewhere.txt"
    target.write_text("not yours")
    (tmp_path / "compilescope-x.log").symlink_to(target)
    result = run_cli("run", "x.py", cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert "it is a symbolic link (to" in result.stderr and "remove it, or choose another path with --trace" in result.stderr
    assert target.read_text() == "not yours"
    # a link where an older version wrote its temporary file is not followed either
    (tmp_path / "compilescope-x.log").unlink()
    (tmp_path / "compilescope-x.json.partial").symlink_to(target)
    again = run_cli("run", "x.py", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert target.read_text() == "not yours"
    assert json.loads((tmp_path / "compilescope-x.json").read_text())["program"]["exit_status"] == 0


def test_a_second_run_replaces_its_own_files(tmp_path: Path) -> None:
    (tmp_path / "x.py").write_text("import sys\nprint(sys.argv[1])\n")
    assert run_cli("run", "x.py", "first", cwd=tmp_path).returncode == 0
    assert run_cli("run", "x.py", "second", cwd=tmp_path).returncode == 0
    assert json.loads((tmp_path / "compilescope-x.json").read_text())["program"]["argv"] == ["second"]
    # (no HTML report: the program never imported torch; test_run_without_torch.py has the rest)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["compilescope-x.json", "compilescope-x.log", "x.py"]


def test_a_file_the_program_puts_at_our_path_is_left_alone(tmp_path: Path) -> None:
    # GIVEN a program that writes its own file where run would save the session
    (tmp_path / "x.py").write_text("open('compilescope-x.json', 'w').write('the program wrote this')\n")
    result = run_cli("run", "x.py", cwd=tmp_path)
    # THEN its file stays, and the session is saved beside it, under a name run says
    assert result.returncode == 0
    assert (tmp_path / "compilescope-x.json").read_text() == "the program wrote this"
    saved = [p for p in tmp_path.glob("compilescope-x.*.json")]
    assert len(saved) == 1 and json.loads(saved[0].read_text())["schema"] == "compilescope/1"
    assert f"saved the session to {saved[0]} instead" in result.stderr


def test_missing_folder_for_an_output_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "x.py").write_text(HELLO)
    result = run_cli("run", "--json", "nowhere/x.json", "x.py", cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert (
        result.stderr.strip()
        == f"compilescope run: will not write to {tmp_path / 'nowhere' / 'x.json'}: its folder {tmp_path / 'nowhere'} does not exist; choose another path with --json"
    )


def test_two_runs_at_once_keep_their_own_files(tmp_path: Path) -> None:
    # GIVEN one run of a program still going when a second run of it starts in the same folder
    (tmp_path / "slow.py").write_text(
        textwrap.dedent(
            """
        import os, sys, time
        if sys.argv[1] == "first":
            open("started", "w").close()
            while not os.path.exists("second-done"):
                time.sleep(0.05)
        print(sys.argv[1])
        """
        )
    )
    env = {**os.environ, "COLUMNS": "120"}
    first = subprocess.Popen(
        [sys.executable, "-m", "compilescope", "run", "slow.py", "first"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        while not (tmp_path / "started").exists():
            assert first.poll() is None, first.communicate()
        second = run_cli("run", "slow.py", "second", cwd=tmp_path)
        (tmp_path / "second-done").touch()
        out, err = first.communicate(timeout=120)
    finally:
        if first.poll() is None:
            first.kill()
    assert second.returncode == 0 and first.returncode == 0, (second.stderr, err)
    # THEN the second took names of its own; each session says its own arguments
    sessions = {json.loads(p.read_text())["program"]["argv"][0]: p.name for p in tmp_path.glob("compilescope-slow*.json")}
    assert sessions["first"] == "compilescope-slow.json"
    assert sessions["second"].startswith("compilescope-slow.pid") and sessions["second"].endswith(".json")
