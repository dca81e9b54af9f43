"""A text sentence whose content words nearly all stand in one source sentence, in another order, is read against
that sentence (source_search.bag_host): the offline verifier on real spaCy parses (the packaged MiniLM)."""

from __future__ import annotations

import citefix
from citefix.verify.source_search import bag_host

FOUNDERS = (
    "Pierre Omidyar, founder of eBay, graduated from Tufts University with a B.S. in computer science.\n"
    "Both of Instagram's founders attended Stanford University as undergraduates.\n"
    "Kevin Systrom earned a B.S. in management science and engineering.\n"
    "Tim Westergren, one of the three founders of Pandora Internet radio, graduated from Stanford University with a "
    "B.A. in political science.\n"
    "Cofounder Jon Kraft also attended Stanford and holds a B.A. in human biology.\n"
    "Their partner Will Glaser went to Duke University.\n"
)


def test_a_role_swap_is_read_against_the_sentence_that_holds_its_words(tmp_path):
    # the swapped core's own words ("attended", names left out) align as well to the Instagram sentence, where no
    # role is turned round; the text sentence's words all stand in Kraft's sentence
    result = citefix.check("Stanford attended Cofounder Jon Kraft and holds a B.A. in human biology.",
                           sources=[FOUNDERS], db=tmp_path / "s.db")
    structure = [s for u in result.units for s in result.verdict_for(u.id).details["structure"]]
    assert "role: attended" in structure, [(u.text, result.verdict_for(u.id).label) for u in result.units]
    faithful = citefix.check("Cofounder Jon Kraft attended Stanford and holds a B.A. in human biology.",
                             sources=[FOUNDERS], db=tmp_path / "s.db")
    assert all(faithful.verdict_for(u.id).label == "supported" for u in faithful.units)


def test_bag_host_locates_only_and_needs_one_clear_sentence(offline_verifier):
    pool = offline_verifier._pool(["a"], offline_verifier._sources([FOUNDERS]))
    host = bag_host(offline_verifier.nlp("Stanford attended Cofounder Jon Kraft and holds a B.A. in human biology."), pool)
    assert host is not None and FOUNDERS[host.start:host.end].startswith("Cofounder Jon Kraft also attended")
    assert not host.keeps_negations and not host.keeps_numbers  # the order may be the very change to find
    # too few of the sentence's words in any one source sentence, or too few words to tell
    assert bag_host(offline_verifier.nlp("Jon Kraft attended Duke University with Kevin Systrom and Tim Westergren."),
                    pool) is None
    assert bag_host(offline_verifier.nlp("Kraft attended Stanford."), pool) is None
    # two source sentences that hold the words alike: the words do not say which
    twice = offline_verifier._pool(["a"], offline_verifier._sources([FOUNDERS + "Cofounder Jon Kraft also attended Stanford and "
                                                     "holds a B.A. in human biology.\n"]))
    assert bag_host(offline_verifier.nlp("Stanford attended Cofounder Jon Kraft and holds a B.A. in human biology."),
                    twice) is None
