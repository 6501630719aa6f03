import pytest

from gasp.associate import associate_genders


@pytest.mark.parametrize(
    ("text", "expected", "female", "male", "neutral"),
    [
        ("She is a nurse. Her patients love her.", "F", 3, 0, 0),
        ("He and his dog; Mr. Smith.", "M", 0, 3, 0),
        ("They/them. Alex is nonbinary; they love their job.", "N", 0, 0, 2),
        ("Ms. Jones arrived", "F", 1, 0, 0),
        ("ms jones arrived", None, 0, 0, 0),  # no 'ms.' in the raw text
        ("Nothing gendered here.", None, 0, 0, 0),
        ("He met her.", None, 1, 1, 0),  # tie
        ("A non-binary person: he, they, their.", "N", 0, 1, 2),
        # non-binary cue present, male > female but not > female + neutral: unassigned
        ("A non-binary person: he, his, they, their.", None, 0, 2, 2),
        # no cue: male > female suffices even with many neutral pronouns
        ("He said they and their friends came; they left.", "M", 0, 1, 3),
        ("Mrs. Doe and herself, female.", "F", 3, 0, 0),
        ("Himself, him, male.", "M", 0, 3, 0),
    ],
)
def test_algorithm_one_by_hand(
    text: str, expected: str | None, female: int, male: int, neutral: int
) -> None:
    row = associate_genders([text]).table.iloc[0]
    assert row["gender"] == expected
    assert (row["female"], row["male"], row["neutral"]) == (female, male, neutral)


def test_shares_include_unassigned() -> None:
    shares = associate_genders(["she", "he", "he", "none"]).shares()
    assert shares["F"] == 0.25
    assert shares["M"] == 0.5
    assert shares["unassigned"] == 0.25
    assert shares["N"] == 0.0
    assert shares.index.tolist() == ["F", "M", "N", "unassigned"]
