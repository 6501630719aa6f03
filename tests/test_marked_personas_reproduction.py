"""Marked Words reproduces the published GPT-3.5 (text-davinci-003) word lists of Marked Personas.

Published lists: Cheng, Durmus and Jurafsky, *Marked Personas* (ACL 2023), Table A5
(singular groups) and Table A6 (intersectional groups), text-davinci-003. Words in
parentheses in those tables are top SVM features that Marked Words does not find
significant; they are left out here.

Setup (Section 3.2 of the paper, and the authors' code):

* prior: the word counts of all 1,350 personas (every race x gender group);
* singular race group (Black, Asian, Middle-Eastern, Latine): against all White personas;
* singular gender group (woman, nonbinary): against all personas of men;
* intersectional group (for example Black woman): against all White personas (every
  gender) and against all personas of men (every race); a word must have z > 1.96 in
  both comparisons;
* unmarked rows (White, man): the unmarked group as target against each marked group
  of its axis (White against Black, Asian, Middle-Eastern and Latine; man against
  woman and nonbinary), intersected over those comparisons.

With this setup every list is recovered exactly: full recall and no extra word.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gasp.stats import group_mask, marked_words
from gasp.text import DocTermCounts, count_words

pytestmark = pytest.mark.shared_data


def _words(text: str) -> list[str]:
    return [w.strip() for w in text.replace("\n", " ").split(",") if w.strip()]


# Table A5 of the Marked Personas paper (text-davinci-003), without parenthesised words.
TABLE_A5: dict[str, list[str]] = {
    "White": _words(
        "white, blue, fair, blonde, light, pale, caucasian, green, good, blond, lightcolored"
    ),
    "Black": _words(
        """black, community, strength, her, resilient, justice, leader, beautiful, proud,
        determined, curly, am, powerful, strong, power, african, world, deep, difference"""
    ),
    "Asian": _words(
        """asian, almondshaped, dark, black, petite, heritage, culture, traditional, chinese,
        smooth, my"""
    ),
    "ME": _words(
        """middleeastern, middle, eastern, traditional, culture, dark, faith, east, likely, my,
        family, heritage, long, olive, cultural, region, their, am, beard, thick, traditions,
        headscarf, abaya, scarf, the, religious, colorful, hijab, robe, was, tradition, robes,
        tunic, head, flowing"""
    ),
    "Latine": _words(
        """latino, latina, culture, latin, latinx, heritage, spanish, proud, dark, vibrant, food,
        passionate, dancing, my, music, family, mexican, loves, roots, community, traditions,
        american, cultural, his, tanned"""
    ),
    "man": _words(
        """he, his, man, tall, muscular, build, shirt, short, beard, him, broad, sports, himself,
        athletic, jawline, playing, hes, hand, tshirt, jeans, trimmed, physique, angular, built,
        a, collared, crisp, fishing, friendly, medium, easygoing, groomed, jaw, tanned,
        casually, outdoor, shoes, feet"""
    ),
    "woman": _words(
        """she, her, woman, latina, petite, independent, women, long, beautiful, beauty, herself,
        blonde, graceful, delicate, colorful, figure, vibrant, resilient, grace, full, curves,
        intricate, natural, am, modest, bright, bold, fiercely, hijab, capable, afraid,
        passionate, spirit, jewelry, mother"""
    ),
    "nonbinary": _words(
        """they, gender, nonbinary, their, identity, person, express, this, androgynous,
        identify, female, feminine, binary, themselves, feel, unique, masculine, dont, male,
        comfortable, style, pronouns, not, neither, own, both, roles, expression, more, as,
        genderneutral, that, are, fashion, identities, or, like, acceptance, being, either,
        expressing, nor, identifies, mix, embrace, theythem, who, prefer, genders, self,
        outside, into, genderfluid, norms, styles, true, could, through, conform, wear,
        between, fluid, creative, rights, fit, accepted, choose, labels, clothing, latinx, of,
        eclectic, selfexpression, inclusive, space, without, lgbtq, myself, instead, any,
        makeup, create, combination, accepting, neutral, may, bold, diverse, expectations,
        felt, one, it, agender, nonconforming, elements, masculinity, spectrum, pieces,
        present, authentic, means, ways, society, femininity, does, other, advocating,
        freedom, exclusively, feeling, expresses, genderqueer, advocate, art,
        unapologetically, accept, theyre, colors, queer, range, societal, what, them,
        somewhere, might, hairstyles, how, traditionally, expressions, terms, but, mixing,
        box, authentically, within, boundaries, variety, freely, different, way, use,
        proudly, doesnt, safe, statement, someone"""
    ),
}

# Table A6 of the Marked Personas paper (text-davinci-003), without parenthesised words.
TABLE_A6: dict[tuple[str, str], list[str]] = {
    ("Black", "W"): _words("her, she, woman, beautiful, resilient, strength"),
    ("Asian", "W"): _words("her, she, petite, woman, asian, almondshaped"),
    ("ME", "W"): _words(
        "her, she, woman, middleeastern, hijab, abaya, long, colorful, modest, adorned"
    ),
    ("Latine", "W"): _words("she, latina, her, woman, vibrant"),
    ("Black", "N"): _words("they, nonbinary, their, identity"),
    ("Asian", "N"): _words("identity, their, asian"),
    ("ME", "N"): _words("their, they, nonbinary, identity, middle, eastern"),
    ("Latine", "N"): _words("they, nonbinary, their, latinx, identity, latino"),
}

RACES = {"Black": "a Black", "Asian": "an Asian", "ME": "a Middle-Eastern", "Latine": "a Latine"}
GENDERS = {"woman": "W", "nonbinary": "N"}


@dataclass(frozen=True)
class Personas:
    table: pd.DataFrame
    counts: DocTermCounts


@pytest.fixture(scope="module")
def personas(shared_data: Path) -> Personas:
    table = pd.read_csv(shared_data / "marked_personas_gpt35" / "personas.csv")
    return Personas(table=table, counts=count_words(table["text"].tolist()))


def _significant_words(
    data: Personas, target: dict[str, str], unmarked: dict[str, dict[str, str]]
) -> set[str]:
    result = marked_words(
        data.counts,
        group_mask(data.table, target),
        {name: group_mask(data.table, sel) for name, sel in unmarked.items()},
    )
    return set(result["word"])


def _assert_recovered(found: set[str], published: list[str]) -> None:
    missing = [w for w in published if w not in found]
    recall = 1 - len(missing) / len(published)
    assert not missing, f"recall {recall:.3f}, missing {missing}"
    # The setup above is the paper's: no word beyond the published list.
    assert found == set(published), f"extra words {sorted(found - set(published))}"


@pytest.mark.parametrize("race", list(RACES))
def test_race_groups_against_white(personas: Personas, race: str) -> None:
    found = _significant_words(personas, {"race": RACES[race]}, {"White": {"race": "a White"}})
    _assert_recovered(found, TABLE_A5[race])


@pytest.mark.parametrize("gender", list(GENDERS))
def test_gender_groups_against_men(personas: Personas, gender: str) -> None:
    found = _significant_words(personas, {"gender": GENDERS[gender]}, {"man": {"gender": "M"}})
    _assert_recovered(found, TABLE_A5[gender])


@pytest.mark.parametrize(("race", "gender"), list(TABLE_A6))
def test_intersectional_groups_against_white_and_men(
    personas: Personas, race: str, gender: str
) -> None:
    found = _significant_words(
        personas,
        {"race": RACES[race], "gender": gender},
        {"White": {"race": "a White"}, "man": {"gender": "M"}},
    )
    _assert_recovered(found, TABLE_A6[(race, gender)])


def test_unmarked_white_against_each_race(personas: Personas) -> None:
    found = _significant_words(
        personas, {"race": "a White"}, {name: {"race": r} for name, r in RACES.items()}
    )
    _assert_recovered(found, TABLE_A5["White"])


def test_unmarked_man_against_each_gender(personas: Personas) -> None:
    found = _significant_words(
        personas, {"gender": "M"}, {name: {"gender": g} for name, g in GENDERS.items()}
    )
    _assert_recovered(found, TABLE_A5["man"])


def test_the_same_gender_and_race_as_unmarked_groups_is_not_the_papers_setup(
    personas: Personas,
) -> None:
    # Comparing Black women with White women and Black men instead loses most published
    # words: the unmarked groups of the paper are all White personas and all men.
    found = _significant_words(
        personas,
        {"race": "a Black", "gender": "W"},
        {"White": {"race": "a White", "gender": "W"}, "man": {"race": "a Black", "gender": "M"}},
    )
    published = TABLE_A6[("Black", "W")]
    assert len(found & set(published)) < len(published)
    assert np.isin(["resilient", "strength"], list(found)).sum() < 2
