"""The tour's texts: every message in English, Chinese and Thai, with the same placeholders, so
that a figure formatted once reads the same in all three; and the language chosen."""

from __future__ import annotations

import re

import pytest

from compilescope.tour.messages import LANGUAGES, MESSAGES, language, placeholders, say


def test_every_message_is_in_every_language_with_the_same_placeholders() -> None:
    for key, texts in MESSAGES.items():
        assert set(texts) == set(LANGUAGES), key
        names = {lang: placeholders(text) for lang, text in texts.items()}
        assert names["zh"] == names["en"] == names["th"], (key, names)
        for lang, text in texts.items():
            assert text.strip() == text and text, (key, lang)


def test_the_figures_read_the_same_in_each_language() -> None:
    for key, texts in MESSAGES.items():
        values = {name: f"<{n}.{n}7 s>" for n, name in enumerate(sorted(placeholders(texts["en"])))}
        said = {lang: say(key, lang, **values) for lang in LANGUAGES}
        figures = {lang: sorted(re.findall(r"<[\d.]+ s>", text)) for lang, text in said.items()}
        assert figures["en"] == figures["zh"] == figures["th"] == sorted(values.values()), key


def test_terms_stay_as_the_lab_writes_them() -> None:
    for key, texts in MESSAGES.items():
        for term in ("guard", "Dynamo", "AOT Autograd", "Inductor", "kernel", "ATen", "torch.compile"):
            if term in texts["en"]:
                assert term in texts["zh"] and term in texts["th"], (key, term)


@pytest.mark.parametrize(
    ("environment", "expected"),
    [
        ({"LANG": "zh_CN.UTF-8"}, "zh"),
        ({"LANG": "th_TH.UTF-8"}, "th"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({}, "en"),
        ({"LC_ALL": "th_TH", "LANG": "zh_CN"}, "th"),
    ],
)
def test_the_language_follows_the_locale(monkeypatch: pytest.MonkeyPatch, environment: dict[str, str], expected: str) -> None:
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)
    for variable, value in environment.items():
        monkeypatch.setenv(variable, value)
    assert language() == expected
    assert language("zh") == "zh"
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        language("fr")
