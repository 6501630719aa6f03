"""The English pronoun list used before SRB scores."""

from __future__ import annotations

from gasp.text import PRONOUNS, is_pronoun, remove_pronouns, tokenize


def test_pronoun_list_covers_gendered_neutral_and_neo_pronouns() -> None:
    required = "he she they him her his hers their theirs them themselves himself herself xe ze"
    for word in required.split():
        assert word in PRONOUNS, word


def test_contractions_in_tokenizer_form() -> None:
    tokens = tokenize("She's sure they're here; he's late and I'm on time")
    mask = is_pronoun(tokens)
    assert [t for t, m in zip(tokens, mask, strict=True) if m] == ["shes", "theyre", "hes", "im"]


def test_english_words_that_look_like_contractions_are_kept() -> None:
    words = ["shed", "hell", "shell", "well", "were", "wed", "ill", "id", "doctor", "hero"]
    assert not is_pronoun(words).any()


def test_remove_pronouns_is_case_insensitive_and_keeps_order() -> None:
    assert remove_pronouns(["Her", "surgeon", "THEM", "caring", "her's"]) == ["surgeon", "caring"]
    assert remove_pronouns([]) == []
