"""Three small synthetic manuals of near-identical air conditioners, and questions about them.

The Nimbus AC-12, AC-14 and AC-16 manuals differ only in their model name: five short sections each, so
a splitter of 200 characters cuts each into five chunks. Shared by the LangChain and the LlamaIndex
retriever contract tests.
"""

from __future__ import annotations

MODELS = ("Nimbus AC-12", "Nimbus AC-14", "Nimbus AC-16")
#: Questions by what they name: a model the store holds, none, a model the store lacks.
QUESTIONS = {
    "model": "How do I clean the filter of the Nimbus AC-14?",
    "none": "How do I clean the filter?",
    "unknown": "How do I clean the filter of the Nimbus AC-99?",
}
CHUNKS_PER_MANUAL = 5


def manual(model: str) -> str:
    """The manual of ``model`` ("Nimbus AC-12"): the same text for every model but the name."""
    short = model.split()[-1]
    return f"""{model}
User Manual

Cleaning the filter

Switch the {short} off and unplug it. Open the front panel of the {short} and pull the filter out.
Rinse the filter in lukewarm water and let it dry in the shade before you put it back.

Error codes

E1 means the room sensor of the {short} is disconnected. E2 means the outdoor unit does not answer.
E3 means the filter is blocked: clean it as described above.

Remote control

The remote control of the {short} takes two AAA batteries. Press MODE to switch between cool, dry and fan.
Press TIMER to set an off-timer in steps of one hour.

Warranty

The {short} is covered for two years from the date of purchase. Keep the receipt.
"""


def source(model: str) -> str:
    """The ``source`` metadata of ``model``'s manual."""
    return model.split()[-1] + ".txt"
