"""Disclosure sentences in Spanish, Portuguese, French and German: who wrote what, a tool denied, a
declaration of no AI, and a tool merely mentioned (pure)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from review.core.attribution import parse_note
from review.core.attribution.sentences import disclosed_writer


def read(note: str) -> list[tuple]:
    return [(e.kind, e.tool, e.path, e.start, e.end) for e in parse_note(note).entries]


@pytest.mark.parametrize(
    "note, entries",
    [
        # Who wrote a file, said in a sentence anywhere in the note.
        ("Claude Code escribió checkout.mjs.", [("file", "Claude Code", "checkout.mjs", None, None)]),
        (
            "El archivo checkout.mjs fue generado por Claude Code.",
            [("file", "Claude Code", "checkout.mjs", None, None)],
        ),
        ("O Copilot escreveu o checkout.mjs.", [("file", "GitHub Copilot", "checkout.mjs", None, None)]),
        ("Cursor a écrit checkout.mjs.", [("file", "Cursor", "checkout.mjs", None, None)]),
        ("Claude Code hat checkout.mjs geschrieben.", [("file", "Claude Code", "checkout.mjs", None, None)]),
        ("Codex schrieb checkout.mjs.", [("file", "OpenAI Codex", "checkout.mjs", None, None)]),
        ("Claude Code escribió las líneas 1-40 de checkout.mjs.", [("range", "Claude Code", "checkout.mjs", 1, 40)]),
        # The candidate's use of a tool, no place named: the tool is disclosed, its lines unmapped.
        ("Usé Claude Code para escribir la función de reintentos.", [("prose", "Claude Code", None, None, None)]),
        ("Eu usei o GitHub Copilot para escrever os testes.", [("prose", "GitHub Copilot", None, None, None)]),
        ("J'ai utilisé Cursor pour la logique de retry.", [("prose", "Cursor", None, None, None)]),
        (
            "Ich habe Claude Code benutzt, um die Wiederholungen zu schreiben.",
            [("prose", "Claude Code", None, None, None)],
        ),
        ("Der Code wurde mit Copilot generiert.", [("prose", "GitHub Copilot", None, None, None)]),
        ("Escrevi tudo com a ajuda do ChatGPT.", [("prose", "ChatGPT", None, None, None)]),
        # A tool denied in one clause, another disclosed in the next.
        (
            "No usé Cursor, pero Claude Code escribió checkout.mjs.",
            [("file", "Claude Code", "checkout.mjs", None, None)],
        ),
        (
            "I did not use Copilot, Claude Code wrote checkout.mjs.",
            [("file", "Claude Code", "checkout.mjs", None, None)],
        ),
    ],
)
def test_a_disclosure_sentence_in_another_language_names_its_writer(note, entries):
    assert read(note) == entries


@pytest.mark.parametrize(
    "note",
    [
        # A tool said not to have been used, under an AI heading too: never its writer.
        "## Uso de IA\n\nNo usé Cursor.",
        "## Uso de IA\n\nNão usei o Copilot.",
        "## KI-Nutzung\n\nIch habe Copilot nicht benutzt.",
        "## Utilisation de l'IA\n\nJe n'ai pas utilisé Copilot.",
        "Claude Code no escribió nada de checkout.mjs.",
        "Copilot schrieb davon nichts, ich schrieb es nicht mit Copilot.",
        # A tool merely mentioned: a description, the docs, an editor.
        "Claude Code es una herramienta creada por Anthropic.",
        "Leí la documentación de Copilot.",
        "Cursor est un éditeur de code.",
        "Copilot ist ein Werkzeug von GitHub.",
    ],
)
def test_a_tool_denied_or_merely_mentioned_in_another_language_is_no_writer(note):
    assert parse_note(note).tools == []


@pytest.mark.parametrize(
    "note",
    [
        "No usé ninguna herramienta de IA.",
        "Não usei nenhuma IA.",
        "Je n'ai utilisé aucune IA.",
        "Ich habe keine KI verwendet.",
        "Escribí todo sin IA.",
    ],
)
def test_a_declaration_of_no_ai_in_another_language_is_read_as_one(note):
    found = parse_note(note)
    assert found.declares_none and found.tools == []


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "usé",
                "Claude Code",
                "ich habe",
                "nicht",
                "hat",
                "geschrieben",
                "wurde mit",
                "con la ayuda de",
                " ",
                ",",
                "pero",
                "j'ai utilisé",
                "a été généré par",
                "x" * 30,
                "checkout.mjs",
                "no",
                "ninguna IA",
            ]
        ),
        max_size=60,
    ),
    st.booleans(),
)
def test_any_sentence_is_read_without_error(words, in_section):
    disclosed_writer(" ".join(words), in_section)
    parse_note(" ".join(words))


def test_a_long_run_of_forms_with_no_end_is_read(in_section=True):
    # Every bounded window meets a form that never completes: read through once, not again per start.
    disclosed_writer("ich habe " * 5000 + "wurde mit " * 5000 + "hat " * 5000, in_section)
