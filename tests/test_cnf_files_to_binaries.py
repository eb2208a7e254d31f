"""DIMACS instances in the solve path without holding them: a binary is handed the user's own
file when it reads it as we do (else a rewrite of it), the model is checked in a streaming
pass over the file, and a file changed since it was read is one clear line."""

from __future__ import annotations

import bz2
import gzip
import shutil
from pathlib import Path

import pytest
import yaml

from satdoku.formats.cnfset import cnf_file_record
from satdoku.solve import open_solver, solve

pytestmark = pytest.mark.skipif(shutil.which("minisat") is None, reason="minisat not installed")

FORMULA = b"p cnf 4 3\n1 -2 0\n2 3 -4 0\n-1 4 0\n"
STANDARD_COPY = b"p cnf 4 3\n1 -2 0\n2 3 -4 0\n-1 4 0\n"  # what a rewrite writes


def _spy(tmp_path: Path, reads: tuple[str, ...] = (), then: str = "") -> object:
    """minisat behind a shell that notes which file it was handed and copies it first."""
    seen, copy = tmp_path / "seen.txt", tmp_path / "copy.bin"
    script = (f"printf '%s' \"$1\" > {seen}; cat \"$1\" > {copy}; {then}"
              "minisat -verb=0 \"$1\" \"$2\"; exit $?")
    command = f"sh -c '{script}' sh {{cnf}} {{result}}"
    options: dict[str, object] = {"solver": "external", "command": command}
    if reads:
        options["reads"] = list(reads)
    return open_solver("bin", {"bin": options})


def _run(tmp_path: Path, name: str, data: bytes, reads: tuple[str, ...] = (), then: str = ""
         ) -> tuple[object, str, bytes]:
    path = tmp_path / name
    path.write_bytes(data)
    record = cnf_file_record(path)
    assert record.cnf is not None, record.error
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    answer = solve(record, _spy(tmp_path, reads, then), "", 30,  # type: ignore[arg-type]
                   workdir=str(work))
    return answer, (tmp_path / "seen.txt").read_text(), (tmp_path / "copy.bin").read_bytes()


def test_a_standard_plain_file_is_handed_over_as_it_is(tmp_path: Path) -> None:
    answer, seen, copy = _run(tmp_path, "-dash.cnf", b"c mine\r\n" + FORMULA)
    assert answer.verified == "yes", answer.detail  # type: ignore[attr-defined]
    assert seen == str(tmp_path / "-dash.cnf")  # absolute: never read as an option
    assert copy == b"c mine\r\n" + FORMULA


@pytest.mark.parametrize("data", [
    b"\xef\xbb\xbf" + FORMULA,  # a byte-order mark
    FORMULA.replace(b"p cnf", b"p  cnf"),  # a p line binaries may refuse
    FORMULA + b"%\n0\n",  # SATLIB's trailer
    FORMULA[:-3],  # the last clause without its 0
])
def test_other_files_are_rewritten_as_standard_dimacs(tmp_path: Path, data: bytes) -> None:
    answer, seen, copy = _run(tmp_path, "odd.cnf", data)
    assert answer.verified == "yes", answer.detail  # type: ignore[attr-defined]
    assert seen == str(tmp_path / "work" / "instance.cnf") and copy == STANDARD_COPY


def test_compressed_files_go_over_only_to_a_binary_that_reads_them(tmp_path: Path) -> None:
    gz = gzip.compress(FORMULA)
    answer, seen, copy = _run(tmp_path, "a.cnf.gz", gz)  # minisat reads gzip: not told
    assert seen.endswith("instance.cnf") and copy == STANDARD_COPY
    answer, seen, copy = _run(tmp_path, "a.cnf.gz", gz, reads=("gzip",))
    assert answer.verified == "yes" and seen == str(tmp_path / "a.cnf.gz") and copy == gz  # type: ignore[attr-defined]
    _, seen, _ = _run(tmp_path, "gzip_named_plain.cnf", gz, reads=("gzip",))  # name misleads
    assert seen.endswith("instance.cnf")
    _, seen, _ = _run(tmp_path, "b.cnf.bz2", bz2.compress(FORMULA), reads=("gzip",))
    assert seen.endswith("instance.cnf")


def test_a_wrong_model_is_found_in_the_streaming_check(tmp_path: Path) -> None:
    (tmp_path / "f.cnf").write_bytes(FORMULA)
    record = cnf_file_record(tmp_path / "f.cnf")
    for model, why in (("-1 2 3 4", "model leaves 1 clauses unsatisfied (first: clause 1)"),
                       ("1 -1 2 3 4", "model sets variable 1 both true and false")):
        command = f"sh -c 'echo s SATISFIABLE; echo v {model} 0; exit 10' sh {{cnf}}"
        answer = solve(record, open_solver("bin", {"bin": {"solver": "external",
                                                             "command": command}}), "", 10)
        assert answer.verified == "FAILED" and answer.detail == why


def test_a_file_changed_during_the_run_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    answer, _, _ = _run(tmp_path, "f.cnf", FORMULA,
                        then=f'echo c edited >> {tmp_path / "f.cnf"}; ')
    assert answer.status == "ERROR"  # type: ignore[attr-defined]
    assert answer.result.message == (  # type: ignore[attr-defined]
        f"model not checked: {tmp_path / 'f.cnf'}: changed since it was read (sha256 differs)")


def test_the_reads_option_is_checked(tmp_path: Path) -> None:
    from satdoku.config import ConfigError, solvers_of_file

    cfg = tmp_path / "c.yaml"
    for reads, ok in ((["gzip", "xz"], True), (["zip"], False), ("gzip", False)):
        cfg.write_text(yaml.safe_dump({"solvers": {"bin": {
            "solver": "external", "command": "minisat {cnf}", "reads": reads}}}))
        if ok:
            solvers_of_file(cfg)
        else:
            with pytest.raises(ConfigError, match="reads"):
                solvers_of_file(cfg)


def test_a_formula_without_a_file_is_written_for_the_binary(tmp_path: Path) -> None:
    from satdoku.cnf.formula import Cnf, Formula
    from satdoku.formats import Record
    from satdoku.formats.record import CnfFile

    cnf = Cnf(4, [[1, -2], [2, 3, -4], [-1, 4]])
    record = Record("mem.cnf", 1, 1, "dimacs", cnf=CnfFile("mem.cnf", 4, 3, ""))  # no file
    work = tmp_path / "work"
    work.mkdir()
    answer = solve(record, _spy(tmp_path), "", 30,  # type: ignore[arg-type]
                   formula=Formula.of(cnf), workdir=str(work))
    assert answer.verified == "yes", answer.detail
    assert (tmp_path / "seen.txt").read_text() == str(work / "instance.cnf")
    assert (tmp_path / "copy.bin").read_bytes() == STANDARD_COPY


def test_the_sets_read_records_the_form_and_the_hand_over_reads_nothing_more(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The set's read finds out whether the file is standard (and its compression); handing
    it over then needs no pass: the model check is the only one after the read."""
    import satdoku.cnf.dimacs_stream as stream

    assert cnf_file_record(_write(tmp_path, "a.cnf", FORMULA)).cnf.standard is True  # type: ignore[union-attr]
    odd = cnf_file_record(_write(tmp_path, "b.cnf", FORMULA + b"%\n0\n")).cnf
    assert odd is not None and odd.standard is False and odd.compression is None
    gz = cnf_file_record(_write(tmp_path, "c.cnf.gz", gzip.compress(FORMULA))).cnf
    assert gz is not None and gz.standard is True and gz.compression == "gzip"
    passes: list[str] = []
    real = stream.scan_dimacs

    def counted(path: object, **kw: object) -> object:
        passes.append("model" if kw.get("values") is not None else "other")
        return real(path, **kw)  # type: ignore[arg-type]

    import satdoku.formats.cnfset as cnfset
    import satdoku.solve as solve_module

    for module in (stream, cnfset, solve_module):  # every name the pass is called by
        monkeypatch.setattr(module, "scan_dimacs", counted)
    answer, seen, _ = _run(tmp_path, "d.cnf", FORMULA)
    assert answer.verified == "yes" and seen == str(tmp_path / "d.cnf")  # type: ignore[attr-defined]
    assert passes == ["other", "model"]  # _run's own read, then the model check alone


def test_a_record_without_its_form_is_scanned_before_the_hand_over(tmp_path: Path) -> None:
    """An Instances file written before the form was recorded has no ``standard``: the solve
    path finds it out (and still hands a standard file over, rewrites any other)."""
    from satdoku.stagefiles.instances import record_from_dict, record_to_dict

    work = tmp_path / "work"
    work.mkdir()
    for name, data, handed in (("s.cnf", FORMULA, True), ("t.cnf", FORMULA + b"%\n0\n", False)):
        d = record_to_dict(cnf_file_record(_write(tmp_path, name, data)))
        assert d["standard"] is handed and "compression" not in d
        assert record_from_dict(d).cnf == cnf_file_record(tmp_path / name).cnf  # round trip
        del d["standard"]
        old = record_from_dict(d)
        assert old.cnf is not None and old.cnf.standard is None
        answer = solve(old, _spy(tmp_path), "", 30, workdir=str(work))  # type: ignore[arg-type]
        assert answer.verified == "yes", answer.detail
        seen = (tmp_path / "seen.txt").read_text()
        assert seen == (str(tmp_path / name) if handed else str(work / "instance.cnf"))


def test_an_unsat_answer_on_a_file_changed_during_the_run_is_an_error(tmp_path: Path) -> None:
    answer, seen, _ = _run(tmp_path, "u.cnf", b"p cnf 1 2\n1 0\n-1 0\n",
                           then=f'echo c edited >> {tmp_path / "u.cnf"}; ')
    assert seen == str(tmp_path / "u.cnf")  # handed over as it was read
    assert answer.status == "ERROR"  # type: ignore[attr-defined]
    assert answer.result.message == (  # type: ignore[attr-defined]
        f"UNSAT not accepted: {tmp_path / 'u.cnf'}: changed since it was read (sha256 "
        "differs)")
    answer, _, _ = _run(tmp_path, "u.cnf", b"p cnf 1 2\n1 0\n-1 0\n")  # unchanged: UNSAT
    assert answer.status == "UNSAT"  # type: ignore[attr-defined]


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_the_sets_checksum_takes_the_sha256s_its_read_computed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`satdoku solve DIR` reads each file once: the set's checksum is made of the sha256s
    the records hold; only an INVALID file (no record of its digest) is hashed apart."""
    import satdoku.set_plans as set_plans
    from satdoku.commands.solve import _read

    _write(tmp_path, "a.cnf", FORMULA)
    _write(tmp_path, "b.cnf", b"p cnf 2 1\n1 x 0\n")
    expect = set_plans.fingerprint(set_plans.cnf_files(tmp_path))
    hashed: list[str] = []
    real = set_plans.file_sha256

    def counted(path: object) -> str:
        hashed.append(Path(str(path)).name)
        return real(path)  # type: ignore[arg-type]

    monkeypatch.setattr(set_plans, "file_sha256", counted)
    sha, records, cnf_set, kept = _read(str(tmp_path), "auto")
    assert cnf_set and sha == expect and hashed == ["b.cnf"] and kept == {}  # a directory
    assert [r.error is None for r in records] == [True, False]


def test_a_single_file_is_read_once_and_its_model_checked_against_that_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> None:
    """`satdoku solve F` keeps the formula its read built: no pass over the file after the
    binary answers SAT, and a wrong model is still FAILED (checked against the formula
    whose sha256 the record holds)."""
    import satdoku.cnf.dimacs_stream as stream
    import satdoku.formats.cnfset as cnfset
    import satdoku.set_plans as set_plans
    import satdoku.solve as solve_module
    from satdoku.cli import main
    from satdoku.commands.solve import _read

    path = _write(tmp_path, "f.cnf", FORMULA)
    sha, records, _, kept = _read(str(path), "auto")
    assert sha == set_plans.fingerprint([path]) and list(kept) == [records[0].index] == [1]
    assert kept[1].clauses == [[1, -2], [2, 3, -4], [-1, 4]]
    passes: list[str] = []
    real = stream.scan_dimacs

    def counted(path: object, **kw: object) -> object:
        passes.append("model" if kw.get("values") is not None else "other")
        return real(path, **kw)  # type: ignore[arg-type]

    for module in (stream, cnfset, solve_module):
        monkeypatch.setattr(module, "scan_dimacs", counted)
    for model, code, out in (("1 2 3 4", 0, "1 2 3 4 0"), ("-1 2 3 4", 1, "Instance Wrong "
                              "Answer: model leaves 1 clauses unsatisfied (first: clause 1)")):
        passes.clear()
        command = f"sh -c 'echo s SATISFIABLE; echo v {model} 0; exit 10' sh {{cnf}}"
        assert main(["solve", str(path), "--command", command]) == code
        assert passes == ["other"]  # the read; the model is checked against what it built
        assert capsys.readouterr().out.strip() == out
