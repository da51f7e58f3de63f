"""Score files under concurrent saves, crashes mid-save, and bad folders: nothing is lost."""

from __future__ import annotations

import multiprocessing
import os
import signal
import stat
import subprocess
import sys
import textwrap
import tomllib

import pytest
import tomli_w

from helpers import seal_file
from review.services import store


def review(who, commit="c" * 40, **kw):
    return store.Review(reviewers=[who], commit=commit, rubric_version="article-v1", **kw)


def test_save_and_read_back(tmp_path):
    sub = tmp_path / "ada"
    sub.mkdir()
    saved = store.save(sub, review("ana", tiers={"key-scope": "weak"}, flags=["fixed-symptom"], comment="x\ny"))
    assert saved.revision == 1 and saved.created and saved.updated
    scores = store.read_scores(sub)
    again = scores.find(saved.key)
    assert again.tiers == {"key-scope": "weak"} and again.flags == ["fixed-symptom"] and again.comment == "x\ny"
    data = tomllib.loads((tmp_path / "ada.review.toml").read_text())
    assert data["schema"] == 1 and data["submission"] == "ada"
    assert stat.S_IMODE((tmp_path / "ada.review.toml").stat().st_mode) == 0o664  # the other reviewer can read it


def test_other_reviewers_entries_are_kept_and_own_conflicts_are_refused(tmp_path):
    sub = tmp_path / "ben"
    sub.mkdir()
    mine = store.save(sub, review("ana"))
    store.save(sub, review("bob", tiers={"evidence": "strong"}))
    # Another console of ana's saved meanwhile:
    store.save(sub, review("ana", tiers={"evidence": "weak"}), base_revision=mine.revision)
    with pytest.raises(store.SaveConflict) as caught:
        store.save(sub, review("ana", tiers={"evidence": "strong"}), base_revision=mine.revision)
    assert caught.value.theirs.tiers == {"evidence": "weak"}
    forced = store.save(sub, review("ana", tiers={"evidence": "strong"}), base_revision=mine.revision, force=True)
    assert forced.revision == 3
    scores = store.read_scores(sub)
    assert {r.who: r.tiers for r in scores.reviews} == {"ana": {"evidence": "strong"}, "bob": {"evidence": "strong"}}


def test_a_merging_save_keeps_what_only_the_other_console_changed_and_names_what_both_did(tmp_path):
    sub = tmp_path / "ben"
    sub.mkdir()
    loaded = store.save(sub, review("ana", tiers={"found-defect": "weak"}))
    # Console 1 saves Evidence; console 2, which loaded the same revision, saves Explanation.
    store.save(sub, review("ana", tiers={"found-defect": "acceptable", "evidence": "strong"}), merge=True, base=loaded)
    merged = store.save(
        sub,
        review("ana", tiers={"found-defect": "weak", "explanation": "strong"}, note_opened="2026-12-02T19:54:40Z"),
        merge=True,
        base=loaded,
    )
    assert merged.revision == 3 and merged.note_opened == "2026-12-02T19:54:40Z"
    assert store.read_scores(sub).find(merged.key).tiers == {
        "found-defect": "acceptable",
        "evidence": "strong",
        "explanation": "strong",
    }
    # Both changed Found the defect: refused, the file untouched, the field named.
    before = (tmp_path / "ben.review.toml").read_bytes()
    with pytest.raises(store.SaveConflict) as caught:
        store.save(sub, review("ana", tiers={"found-defect": "strong"}), merge=True, base=loaded)
    assert [c.field for c in caught.value.conflicts] == [("tier", "found-defect")]
    assert caught.value.theirs.revision == 3 and (tmp_path / "ben.review.toml").read_bytes() == before
    # Forced: this console's value for that field, the other console's for the rest.
    forced = store.save(sub, review("ana", tiers={"found-defect": "strong"}), merge=True, base=loaded, force=True)
    assert forced.tiers == {"found-defect": "strong", "evidence": "strong", "explanation": "strong"}


def test_a_new_commit_is_a_new_entry_and_the_old_one_is_kept(tmp_path):
    sub = tmp_path / "c"
    sub.mkdir()
    store.save(sub, review("ana", commit="a" * 40, state="final"))
    store.save(sub, review("ana", commit="b" * 40))
    scores = store.read_scores(sub)
    assert len(scores.reviews) == 2
    assert store.review_state(scores, "b" * 40) == "stale"
    assert scores.latest_for(["ana"]).commit == "b" * 40


def test_a_pair_is_one_entry_whatever_the_order(tmp_path):
    sub = tmp_path / "p"
    sub.mkdir()
    first = store.save(sub, store.Review(["ben", "ana"], "c" * 40))
    store.save(sub, store.Review(["ana", "ben"], "c" * 40, tiers={"evidence": "weak"}), base_revision=first.revision)
    scores = store.read_scores(sub)
    assert len(scores.reviews) == 1 and scores.reviews[0].who == "ana + ben"


def _hammer(folder: str, who: str, count: int) -> None:
    from pathlib import Path

    from review.services import store as s

    sub = Path(folder)
    revision = None
    for i in range(count):
        saved = s.save(sub, s.Review([who], "c" * 40, comments={"evidence": str(i)}), base_revision=revision)
        revision = saved.revision


def test_two_processes_saving_500_times_each_lose_nothing(tmp_path):
    sub = tmp_path / "shared"
    sub.mkdir()
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_hammer, args=(str(sub), who, 500)) for who in ("ana", "bob")]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    scores = store.read_scores(sub)
    assert {r.who: (r.revision, r.comments["evidence"]) for r in scores.reviews} == {
        "ana": (500, "499"),
        "bob": (500, "499"),
    }


CRASHER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from review.services import store
    sub = Path(sys.argv[1])
    i = 0
    while True:
        scores = store.read_scores(sub)
        mine = scores.find((("ana",), "c" * 40))
        store.save(sub, store.Review(["ana"], "c" * 40, comment="x" * 20000 + str(i)),
                   base_revision=mine.revision if mine else None)
        print("saved", i, flush=True)
        i += 1
""")


def test_sigkill_mid_save_never_leaves_unreadable_toml(tmp_path):
    sub = tmp_path / "crash"
    sub.mkdir()
    store.save(sub, review("bob", tiers={"evidence": "strong"}))
    path = tmp_path / "crash.review.toml"
    import random

    rng = random.Random(7)
    for _ in range(100):
        proc = subprocess.Popen([sys.executable, "-c", CRASHER, str(sub)], stdout=subprocess.PIPE)
        assert proc.stdout is not None
        # Past start-up, whatever the machine's load: once it has said it saved (once or a few times),
        # killed somewhere inside the next save.
        for _ in range(rng.randint(1, 3)):
            assert proc.stdout.readline().startswith(b"saved")
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        data = tomllib.loads(path.read_text())  # raises if the file were ever half-written
        whos = {tuple(r["reviewers"]) for r in data["reviews"]}
        assert ("bob",) in whos  # the other reviewer's entry survives every crash
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    scores = store.read_scores(sub)
    assert scores.problem is None  # stray temp files (a kill between mkstemp and replace) are ignored
    assert all(name.startswith(".crash.review.toml.") for name in leftovers)
    (tmp_path / ".crash.review.toml.planted.tmp").write_text("a crashed save's temp file")
    store.save(sub, review("cy"))  # the next save (anyone's) cleans up after every crashed one
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere; covered by the read-only mount test")
def test_read_only_folder_gives_a_clear_message(tmp_path):
    sub = tmp_path / "ro"
    sub.mkdir()
    tmp_path.chmod(0o555)
    try:
        with pytest.raises(store.StoreError, match="permission denied"):
            store.save(sub, review("ana"))
    finally:
        tmp_path.chmod(0o755)


def test_read_only_folder_as_root_via_a_read_only_bind_mount(tmp_path):
    if os.geteuid() != 0 or subprocess.run(["which", "unshare"], capture_output=True).returncode:
        pytest.skip("needs root and unshare for a private read-only mount")
    sub = tmp_path / "ro" / "ada"
    sub.mkdir(parents=True)
    code = (
        "from pathlib import Path; from review import store\n"
        "try:\n    store.save(Path(%r), store.Review(['ana'], 'c' * 40))\n"
        "except store.StoreError as e:\n    print('ERR', e)\n"
    ) % str(sub)
    result = subprocess.run(
        [
            "unshare",
            "-m",
            "sh",
            "-c",
            f"mount --bind {tmp_path / 'ro'} {tmp_path / 'ro'} && "
            f'mount -o remount,bind,ro {tmp_path / "ro"} && {sys.executable} -c "$0"',
            code,
        ],
        capture_output=True,
        text=True,
    )
    if "ERR" not in result.stdout and result.returncode:
        pytest.skip(f"mount namespaces unavailable: {result.stderr.strip()[:200]}")
    assert "ERR" in result.stdout and ("read-only" in result.stdout or "cannot" in result.stdout)
    assert "your review is still in the form" in result.stdout


def test_a_broken_score_file_is_not_overwritten(tmp_path):
    sub = tmp_path / "b"
    sub.mkdir()
    (tmp_path / "b.review.toml").write_text("reviews = [ broken")
    with pytest.raises(store.StoreError, match="not overwritten"):
        store.save(sub, review("ana"))
    assert (tmp_path / "b.review.toml").read_text() == "reviews = [ broken"


@pytest.mark.parametrize(
    "entry, words",
    [
        ('tiers = "strong"', "tiers must be a table of signal = tier, not str 'strong'"),
        ("commit = 5", "commit must be a commit id in quotes, not int '5'"),
        (
            "[reviews.tiers]\nevidence = 3",
            "tier of evidence must be one of weak, acceptable, strong, no-decision, not '3'",
        ),
        ('state = "done"', "state must be draft or final, not 'done'"),
    ],
)
def test_a_score_file_with_wrong_types_says_what_is_wrong_and_nothing_crashes(tmp_path, capsys, entry, words):
    from helpers import make_repo
    from review.cli import main

    cohort_dir = tmp_path / "c"
    make_repo(cohort_dir / "sub", {"checkout.mjs": "x\n"})
    (cohort_dir / "sub.review.toml").write_text(f'schema = 1\n[[reviews]]\nreviewers = ["a"]\n{entry}\n')
    scores = store.read_scores(cohort_dir / "sub")
    assert words in (scores.problem or "") and scores.reviews == []
    assert main(["triage", str(cohort_dir), "--json"]) == 0  # the row says it; no traceback
    assert words in capsys.readouterr().out
    assert main(["export", str(cohort_dir), "--format", "csv"]) == 0
    assert "unreadable" in capsys.readouterr().out
    with pytest.raises(store.StoreError):  # and a save never overwrites what it could not read
        store.save(cohort_dir / "sub", store.Review(["b"], "a" * 40))


def test_fields_this_version_does_not_know_survive_a_save_and_a_newer_schema_is_not_overwritten(tmp_path):
    import tomllib

    sub = tmp_path / "sub"
    sub.mkdir()
    path = tmp_path / "sub.review.toml"
    path.write_text(
        'schema = 1\nsubmission = "sub"\ncohort_note = "kept"\n[[reviews]]\nreviewers = ["a"]\n'
        'commit = "' + "a" * 40 + '"\nrevision = 1\nconfidence = 0.8\n[[reviews]]\nreviewers = ["b"]\n'
        'commit = "' + "a" * 40 + '"\nrevision = 1\nmood = "good"\n'
    )
    seal_file(path)
    store.save(sub, store.Review(["a"], "a" * 40, tiers={"evidence": "weak"}), base_revision=1)
    data = tomllib.loads(path.read_text())
    assert data["cohort_note"] == "kept"
    by_who = {r["reviewers"][0]: r for r in data["reviews"]}
    assert by_who["a"]["confidence"] == 0.8 and by_who["a"]["tiers"] == {"evidence": "weak"}
    assert by_who["b"]["mood"] == "good"
    path.write_text(path.read_text().replace("schema = 1", "schema = 2"))
    before = path.read_text()
    with pytest.raises(store.StoreError, match="newer version of review"):
        store.save(sub, store.Review(["a"], "a" * 40), base_revision=2)
    assert path.read_text() == before


def test_sixty_writers_on_one_file_are_all_served_and_lose_nothing(tmp_path):
    """The lock is the kernel's blocking flock: no writer polls, none starves past the timeout."""
    import threading

    sub = tmp_path / "shared"
    sub.mkdir()
    refused: list[str] = []

    def writer(who: str) -> None:
        revision = None
        for i in range(5):
            try:
                revision = store.save(
                    sub, store.Review([who], "c" * 40, comments={"evidence": str(i)}), base_revision=revision
                ).revision
            except store.StoreError as error:
                refused.append(str(error))

    threads = [threading.Thread(target=writer, args=(f"r{n}",)) for n in range(60)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert refused == []
    scores = store.read_scores(sub)
    assert len(scores.reviews) == 60 and {r.revision for r in scores.reviews} == {5}


def test_the_lock_file_is_group_writable_whatever_the_umask(tmp_path):
    import stat as stat_module

    sub = tmp_path / "pair"
    sub.mkdir()
    old = os.umask(0o022)
    try:
        store.save(sub, store.Review(["ana"], "c" * 40))
    finally:
        os.umask(old)
    lock = tmp_path / "pair.review.toml.lock"
    assert stat_module.S_IMODE(lock.stat().st_mode) == 0o664
    assert stat_module.S_IMODE((tmp_path / "pair.review.toml").stat().st_mode) == 0o664


def test_a_held_lock_reports_progress_then_refuses_with_the_reason(tmp_path, monkeypatch):
    import fcntl

    sub = tmp_path / "busy"
    sub.mkdir()
    store.save(sub, store.Review(["ana"], "c" * 40))
    holder = os.open(tmp_path / "busy.review.toml.lock", os.O_RDWR)
    fcntl.flock(holder, fcntl.LOCK_EX)  # another console, mid-save
    waits: list[float] = []
    try:
        with pytest.raises(store.StoreError, match="locked by another save"):
            with store.locked(store.score_path(sub), timeout=2.5, on_wait=waits.append):
                pass
    finally:
        os.close(holder)
    assert len(waits) >= 2  # one progress call a second
    store.save(sub, store.Review(["ana"], "c" * 40), base_revision=1)  # released: saves again


def _final_at(commit: str, tier: str = "strong") -> str:
    return (
        f'schema = 1\n[[reviews]]\nreviewers = ["lead"]\nstate = "final"\ncommit = "{commit}"\n'
        f'[reviews.tiers]\nfound-defect = "{tier}"\n'
    )


def test_a_planted_score_file_is_kept_but_not_counted_and_a_save_keeps_it(tmp_path, capsys):
    from helpers import make_repo
    from review.cli import main

    sub = make_repo(tmp_path / "sub", {"checkout.mjs": "x\n"})
    path = tmp_path / "sub.review.toml"
    path.write_text(_final_at("a" * 40))  # what a candidate could unpack beside their folder
    scores = store.read_scores(sub)
    assert scores.reviews == [] and store.review_state(scores, "a" * 40) == "new"
    assert "not sealed" in scores.unsealed_notice and "lead" in scores.unsealed_notice
    store.save(sub, store.Review(["ana"], "a" * 40, state="final", tiers={"found-defect": "weak"}))
    data = tomllib.loads(path.read_text())
    assert {tuple(r["reviewers"]) for r in data["reviews"]} == {("lead",), ("ana",)}  # nothing lost
    again = store.read_scores(sub)
    assert [r.who for r in again.reviews] == ["ana"] and store.review_state(again, "a" * 40) == "scored"
    assert len(again.unsealed) == 1
    assert main(["export", str(tmp_path), "--format", "csv"]) == 0  # shown in the export, marked, not counted
    lines = capsys.readouterr().out.splitlines()
    assert any("lead" in line and "unsealed" in line and "not sealed" in line for line in lines)
    assert any(line.startswith("sub,ana,final") for line in lines)


def test_a_sealed_entry_edited_by_hand_or_moved_to_another_commit_is_not_trusted(tmp_path):
    sub = tmp_path / "sub"
    sub.mkdir()
    path = tmp_path / "sub.review.toml"
    store.save(sub, store.Review(["ana"], "b" * 40, state="final", tiers={"found-defect": "weak"}))
    assert [r.who for r in store.read_scores(sub).reviews] == ["ana"]
    sealed = path.read_text()
    path.write_text(sealed.replace('"weak"', '"strong"'))
    assert "does not match its contents" in store.read_scores(sub).unsealed_notice
    path.write_text(sealed.replace("b" * 40, "c" * 40))  # "scored at my HEAD", copied from an old review
    scores = store.read_scores(sub)
    assert scores.reviews == [] and store.review_state(scores, "c" * 40) == "new"


def test_a_pair_on_two_accounts_shares_a_key_and_a_stranger_key_is_named(tmp_path, monkeypatch):
    from review.services import seal

    sub = tmp_path / "sub"
    sub.mkdir()
    store.save(sub, store.Review(["ana"], "a" * 40, state="final"))  # ana's own key, made on first save
    key_file = seal.key_path()
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "bob-data"))  # bob: another account, another key
    seal.key(create=True)
    assert "sealed with another key" in store.read_scores(sub).unsealed_notice
    monkeypatch.setenv(seal.KEY_ENV, str(key_file))  # the pair's shared key (README: pair review)
    assert [r.who for r in store.read_scores(sub).reviews] == ["ana"]
    key_file.write_text("not a key\n")
    scores = store.read_scores(sub)
    assert scores.reviews == [] and "is not a key" in scores.unsealed_notice
    with pytest.raises(store.StoreError, match="is not a key"):
        store.save(sub, store.Review(["bob"], "a" * 40))


def test_bench_store_reports_no_refused_and_no_lost_saves(tmp_path, capsys, monkeypatch):
    from review.cli import main
    from review.services import seal

    monkeypatch.setenv(seal.KEY_ENV, "")  # restored after: the benchmark sets its own key
    assert main(["bench", "store", "--writers", "6", "--saves", "5", "--into", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "acknowledged saves       30" in out
    assert "refused saves             0" in out and "lost saves                0" in out
    entries = store.read_scores(tmp_path / "shared").reviews
    assert sorted(r.revision for r in entries) == [5] * 6  # each writer's fifth save is what is on disk


def test_my_own_unsealed_entry_is_offered_to_check_and_a_save_seals_it_in_its_place(tmp_path):
    sub = tmp_path / "sub"
    sub.mkdir()
    (tmp_path / "sub.review.toml").write_text(
        'schema = 1\n[[reviews]]\nreviewers = ["ana"]\nstate = "draft"\ncommit = "' + "a" * 40 + '"\n'
        '[reviews.tiers]\nevidence = "strong"\n'
    )  # written before seals existed
    scores = store.read_scores(sub)
    offered = scores.unsealed_for(["ana"])
    assert offered is not None and offered.tiers == {"evidence": "strong"} and scores.unsealed_for(["bob"]) is None
    store.save(sub, store.Review(["ana"], "a" * 40, tiers=offered.tiers))
    again = store.read_scores(sub)
    assert [r.tiers for r in again.reviews] == [{"evidence": "strong"}] and again.unsealed == []


def test_another_reviewers_entry_is_written_back_exactly_as_it_was_so_its_seal_holds(tmp_path):
    """A newer console's entry (an anchored comment with a field this version does not know) survives
    an older console's save byte for byte, sealed."""
    from review.services import seal

    sub = tmp_path / "sub"
    sub.mkdir()
    entry = {
        "reviewers": ["bob"],
        "commit": "a" * 40,
        "state": "final",
        "revision": 1,
        "anchored": [{"at": "checkout.mjs:3-9", "text": "hoisted", "colour": "amber"}],
    }
    entry["seal"] = seal.sign(entry, seal.key(create=True))
    (tmp_path / "sub.review.toml").write_text(tomli_w.dumps({"schema": 1, "reviews": [entry]}))
    store.save(sub, store.Review(["ana"], "a" * 40, tiers={"evidence": "weak"}))
    kept = {tuple(r["reviewers"]): r for r in tomllib.loads((tmp_path / "sub.review.toml").read_text())["reviews"]}
    assert kept[("bob",)] == entry
    assert sorted(r.who for r in store.read_scores(sub).reviews) == ["ana", "bob"]  # both seals hold
