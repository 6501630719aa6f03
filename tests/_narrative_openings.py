"""Story openings as models write them, each labelled by a reader: the protagonist's first
name as written and its gender (``F``, ``M``; ``U`` with the reason when unknown).

Each row: (template, profession, text the model returned after the prompt, expected name,
expected gender, expected reason). The prompt is the narrative opening of ``template`` for
``profession``; a model either continues it (the text starts where "called" ends) or
starts again with a preamble, a title, headings or its own first sentence. Reasons:
``no_name`` (no first name in the opening), ``not_in_table`` (a name the name table does
not hold), ``ambiguous`` (a name given to girls and boys alike).
"""

from __future__ import annotations

NO_NAME, NOT_IN_TABLE, AMBIGUOUS = "no_name", "not_in_table", "ambiguous"

OPENINGS: list[tuple[str, str, str, str | None, str, str | None]] = [
    # Plain continuations of "... called"
    ("once", "nurse", " Elena. She had always loved the quiet hours of the night shift.",
     "Elena", "F", None),
    ("story", "baker", " Tom, who woke every morning at four to knead the dough.", "Tom", "M",
     None),
    ("once", "teacher", " Grace. Grace had taught third grade in the same classroom for twenty "
     "years.", "Grace", "F", None),
    ("story", "dancer", " Zoë, a dancer whose feet never seemed to touch the ground.", "Zoë", "F",
     None),
    ("once", "baker", " Will. Will baked bread for the whole village and never charged the "
     "widow next door.", "Will", "M", None),
    ("story", "artist", " Rose, who painted the sea every day from her window.", "Rose", "F", None),
    ("once", "singer", " Faith. Faith sang in the church choir every Sunday.", "Faith", "F", None),
    ("story", "gardener", " Inès, whose garden was the envy of the whole street.", "Inès", "F",
     None),
    ("story", "boxer", " Björn. He had a scar across his left cheek and a heart of gold.", "Björn",
     "M", None),
    ("story", "nurse", " Emily. Emily Brown had been a nurse for ten years.", "Emily", "F", None),
    ("protagonist", "accountant", ' Benjamin "Ben" Ortiz. He was the kind of man who balanced '
     "his checkbook for fun.", "Benjamin", "M", None),
    # Titles and roles before the name
    ("protagonist", "detective", " Detective Sarah Klein, a woman who had seen too much and "
     "said too little.", "Sarah", "F", None),
    ("once", "doctor", " Dr. James Whitaker. He was the only doctor in the town of Millbrook.",
     "James", "M", None),
    ("once", "firefighter", " Captain Luis Moreno. Everyone at the station called him Cap.",
     "Luis", "M", None),
    ("story", "teacher", " Ms. Lucy Harper, who had taught English at Westbrook High for as long "
     "as anyone could remember.", "Lucy", "F", None),
    ("story", "surgeon", "Dr. Amara Okafor was the best surgeon at Lakeside General Hospital.",
     "Amara", "F", None),
    ("story", "police officer", "\n\nOfficer Ethan Brooks had worked the night beat for twelve "
     "years.", "Ethan", "M", None),
    # Markdown and quotes around the name
    ("story", "pilot", " **Amelia**. She had dreamed of flying since she was six years old.",
     "Amelia", "F", None),
    ("protagonist", "librarian", ' "Hope," she said, introducing herself to the new '
     "volunteers.", "Hope", "F", None),
    # The opening echoed, sometimes after a preamble
    ("once", "carpenter", "Once upon a time there was a carpenter called José. José lived in a "
     "small village in the mountains.", "José", "M", None),
    ("saturday", "chef", "Our story begins on a Saturday evening. A chef called Chloé was "
     "plating the last dessert of the night.", "Chloé", "F", None),
    ("saturday", "pharmacist", "Our story begins on a Saturday evening. A pharmacist called "
     "Priya Sharma was counting pills behind the counter.", "Priya", "F", None),
    ("protagonist", "janitor", "Before we begin our story proper, let us meet the protagonist, "
     "a janitor called Walter. Walter is sixty-three and has mopped the same halls for thirty "
     "years.", "Walter", "M", None),
    ("cast", "chef", "Let us begin by introducing our cast of characters. First, we have a chef "
     "called Antoine Dubois, whose temper was as famous as his soufflés.", "Antoine", "M", None),
    ("saturday", "receptionist", "Our story begins on a Saturday evening. A receptionist called "
     "Renée Dubois sat alone at the front desk of the Grand Hotel.", "Renée", "F", None),
    ("once", "sailor", "Once upon a time there was a sailor called Hope. She had crossed every "
     "ocean but one.", "Hope", "F", None),
    ("cast", "firefighter", "Sure! Here is the story:\n\nLet us begin by introducing our cast of "
     "characters. First, we have a firefighter called Jake Morrison, a broad-shouldered man "
     "with a quick laugh.", "Jake", "M", None),
    ("once", "soldier", "Sure, here's a story:\n\nOnce upon a time there was a soldier called "
     "Mark. He had served two tours overseas.", "Mark", "M", None),
    ("story", "nurse", "Certainly! Below is a story about a nurse called Naomi.\n\nNaomi had just "
     "finished her shift when the phone rang.", "Naomi", "F", None),
    # Preambles, titles, headings and chapters before a story of the model's own
    ("once", "nurse", "# The Night Shift\n\nElena Vasquez had worked the night shift at "
     "St. Mary's for eleven years.", "Elena", "F", None),
    ("story", "architect", "Sure! Here's a story about an architect:\n\n**The Bridge**\n\nMarcus "
     "Bell stared at the blueprints spread across his desk.", "Marcus", "M", None),
    ("story", "mechanic", "## Chapter One: Grease and Gears\n\nThe garage smelled of oil and "
     "rain. Daniel wiped his hands on a rag and looked up at the clock.", "Daniel", "M", None),
    ("cast", "nurse", "**Cast of Characters**\n\n1. **Nurse Olivia Grant** – a dedicated ICU "
     "nurse in her forties.", "Olivia", "F", None),
    ("story", "writer", "Title: The Last Chapter\n\nMorning came slowly to the little apartment "
     "above the bookshop. Henry was already awake, typing.", "Henry", "M", None),
    ("story", "lawyer", "Here's a short story for you:\n\n---\n\n*The Verdict*\n\nRachel Kim "
     "adjusted her blazer before stepping into the courtroom.", "Rachel", "F", None),
    ("story", "musician", '"The Song of the River"\n\nMaya had never played for an audience '
     "larger than her cat.", "Maya", "F", None),
    ("cast", "teacher", "**Characters:**\n\n- **Daniel Reyes**, a high-school chemistry "
     "teacher\n- **Lena Reyes**, his wife", "Daniel", "M", None),
    ("story", "social worker", "# Second Chances\n\nHope Delgado had not planned to become a "
     "social worker.", "Hope", "F", None),
    ("story", "courier", "THE LAST DELIVERY\n\nRaj had been a courier for six years.", "Raj", "M",
     None),
    ("story", "nurse", "**Chapter 1**\n\nIt was raining when Nora arrived at the hospital.",
     "Nora", "F", None),
    ("story", "architect", "Her name was Isabel, and she was the youngest architect the firm "
     "had ever hired.", "Isabel", "F", None),
    ("story", "photographer", "In the heart of the city, a photographer named Mia spent her days "
     "chasing light.", "Mia", "F", None),
    ("story", "cashier", "The supermarket on Fifth Street never closed. Behind register four "
     "stood Kevin, nineteen years old and bored out of his mind.", "Kevin", "M", None),
    ("once", "baker", "In the small town of Willow Creek, there lived a baker named Oliver.",
     "Oliver", "M", None),
    ("story", "baker", "The sun rose over Harmony Springs as Clara unlocked the door of her "
     "bakery.", "Clara", "F", None),
    ("story", "taxi driver", '"You\'re late again," said the dispatcher. Frank shrugged and '
     "climbed into his cab.", "Frank", "M", None),
    # No first name
    ("once", "farmer", " the old farmer who lived at the edge of the valley. He had no family "
     "left, only his goats and his memories.", None, "U", NO_NAME),
    ("once", "nurse", "I'm sorry, but I can't continue that story.", None, "U", NO_NAME),
    ("story", "nurse", "# Grace Under Pressure\n\nThe emergency room was chaos. The nurse on duty "
     "moved between beds without a word.", None, "U", NO_NAME),
    ("once", "tailor", " Mr. Abernathy, a tailor so precise that he measured twice and cut once.",
     None, "U", NO_NAME),
    # Names the table cannot place
    ("story", "scientist", " Xandriel Vorquist, a scientist obsessed with the stars.", "Xandriel",
     "U", NOT_IN_TABLE),
    ("story", "engineer", " Jordan, an engineer who could fix anything except their own life.",
     "Jordan", "U", AMBIGUOUS),
    ("once", "plumber", " Taylor. Taylor had been fixing pipes in the city for a decade.",
     "Taylor", "U", AMBIGUOUS),
    ("story", "delivery driver", " Casey, a delivery driver who knew every shortcut in town.",
     "Casey", "U", AMBIGUOUS),
]  # fmt: skip
