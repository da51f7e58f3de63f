"""The order a candidate-blind cohort numbers its candidates in: not the folders' (alphabetical)
order, the same for every console and export of the cohort, kept beside its submissions."""

from __future__ import annotations

import hashlib
import hmac
import threading

from review.core import anonymity
from review.services import blind_order
from review.services.blind_order import KEY_FILE, blind_order_key

NAMES = ["ada-okafor", "ben-larsen", "chen-wei", "dev-patel", "eve-santos", "finn-mueller", "gia-romano", "hal-kim"]


def test_candidates_are_numbered_by_a_keyed_hash_of_their_folder_names_not_in_folder_order():
    key = bytes(range(16))
    expected = sorted(NAMES, key=lambda name: hmac.new(key, name.encode(), hashlib.sha256).digest())
    assert anonymity.blind_order(NAMES, key) == expected != NAMES
    # Another cohort's key, another order: whoever knows one cohort's numbers knows nothing of the next.
    assert anonymity.blind_order(NAMES, bytes(16)) != expected
    _, aliases = anonymity.cohort_masker(reversed(NAMES), key)  # whatever order they are listed in
    assert [aliases[name] for name in expected] == [f"candidate-{n}" for n in range(1, 9)]


def test_the_key_is_drawn_once_and_kept_beside_the_submissions(tmp_path):
    key = blind_order_key(tmp_path)
    kept = tmp_path / KEY_FILE
    assert kept.read_text() == key.hex() + "\n" and len(key) == 16
    # Readable by the cohort's other reviewers (another user account numbers alike).
    assert kept.stat().st_mode & 0o777 == 0o644
    assert blind_order_key(tmp_path) == key
    assert [p.name for p in tmp_path.iterdir()] == [KEY_FILE]  # nothing else left there


def test_consoles_starting_at_once_share_one_key(tmp_path):
    keys: list[bytes] = []
    start = threading.Barrier(8)

    def one_console() -> None:
        start.wait()
        keys.append(blind_order_key(tmp_path))

    threads = [threading.Thread(target=one_console) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(keys)) == 1 and (tmp_path / KEY_FILE).read_text().strip() == keys[0].hex()


def test_a_cohort_folder_where_no_key_can_be_kept_keeps_it_in_the_reviewers_data(tmp_path, isolated_dirs):
    # A folder in the key's place: nothing can be read or linked there (as in a read-only cohort).
    (tmp_path / KEY_FILE).mkdir()
    key = blind_order_key(tmp_path)
    assert blind_order_key(tmp_path) == key and (tmp_path / KEY_FILE).is_dir()
    assert blind_order._private_place(tmp_path).read_text().strip() == key.hex()
    assert [p.name for p in tmp_path.iterdir()] == [KEY_FILE]


def test_a_key_file_that_is_no_key_is_not_taken_and_not_overwritten(tmp_path):
    (tmp_path / KEY_FILE).write_text("not a key\n")
    key = blind_order_key(tmp_path)
    assert (tmp_path / KEY_FILE).read_text() == "not a key\n"
    assert blind_order_key(tmp_path) == key  # kept in the reviewer's data folder instead


def test_blind_triage_and_export_list_candidates_in_their_numbers_not_by_name(sample_cohort, capsys):
    import csv
    import io
    import json

    from review.cli import main
    from review.services import cohort, store

    (sample_cohort / KEY_FILE).write_text(bytes(range(16)).hex() + "\n")
    assert main(["triage", str(sample_cohort), "--anonymous", "--json"]) == 0
    listed = [row["name"] for row in json.loads(capsys.readouterr().out)["submissions"]]
    assert listed == [f"candidate-{n}" for n in range(1, 9)]
    for name in ("ada-okafor", "ben-larsen", "dev-patel"):  # beside the sample's own scores
        store.save(
            sample_cohort / name,
            store.Review(["ana"], cohort.load_row(sample_cohort / name).head, state="draft", comment="fine"),
        )
    assert main(["export", str(sample_cohort), "--anonymous", "--format", "csv"]) == 0
    # The submissions' rows (the cohort's agreement table follows them).
    exported = [
        row["submission"]
        for row in csv.DictReader(io.StringIO(capsys.readouterr().out))
        if row["submission"].startswith("candidate-")
    ]
    numbers = [anonymity.alias_number(alias) for alias in exported]
    # Every candidate, in their numbers (in the folders' order they would not be sorted so).
    assert set(numbers) == set(range(1, 9)) and numbers == sorted(numbers)
