"""The extractive backend on technical documentation as citebound ingests it (Sphinx and man-page HTML):
a definition's first sentence comes with the term it defines, a sentence that introduces a one-line
command comes with the command, a sentence before a code block stays a candidate, `heap[0]` is quoted
as written, and the answer can open with the sentence the answerability model prefers. Every reply is
checked by the real verifier."""

import pytest

from citebound.generation import GenerationRequest, get_backend
from citebound.kb.ingest.html import html_to_text
from citebound.kb.ingest.walk import normalize_text
from citebound.verify import verify_answer
from citebound.verify.schema import parse_reply

ALWAYS = {"threshold": 0.0}

JSON_TOOL = normalize_text(html_to_text("""
<h2>Command line options<a class="headerlink" href="#x">¶</a></h2>
<dl><dt id="cmdoption-sort-keys"><span>--sort-keys</span><a class="headerlink" href="#y">¶</a></dt>
<dd><p>Sort the output of dictionaries alphabetically by key.</p><p>New in version 3.5.</p></dd>
<dt id="cmdoption-json-lines"><span>--json-lines</span><a class="headerlink" href="#z">¶</a></dt>
<dd><p>Parse every input line as separate JSON object.</p><p>New in version 3.8.</p></dd></dl>
<h2>Random<a class="headerlink" href="#r">¶</a></h2>
<dl class="py class"><dt>class random.SystemRandom([seed])<a class="headerlink" href="#s">¶</a></dt>
<dd><p>Class that uses the os.urandom() function for generating random numbers from sources provided by
the operating system. Not available on all systems.</p></dd></dl>
"""))

VENV = normalize_text(html_to_text("""
<p>Once you have created a virtual environment, you may activate it.</p>
<p>On Unix or MacOS, run:</p><pre>source tutorial-env/bin/activate</pre>
<p>Syntax errors, also known as parsing errors, are perhaps the most common kind of complaint you get
while you are still learning Python:</p>
<pre>&gt;&gt;&gt; while True print('Hello world')
  File "&lt;stdin&gt;", line 1
    while True print('Hello world')
SyntaxError: invalid syntax</pre>
<p>The interesting property of a heap is that its smallest element is always the root, heap[0].</p>
"""))


def _answer(question: str, source: str, **options):
    backend = get_backend("extractive", **{**ALWAYS, "max_sentences": 1, **options})
    reply = parse_reply(backend.generate(GenerationRequest(question, {"S1": source})).text)
    report = verify_answer(reply, {"S1": source})
    assert [c.label for c in report.claims] == ["supported"], report.to_dict()
    assert all(c.quote in source for c in reply.citations)  # quotes stay verbatim
    return reply


@pytest.mark.parametrize("question, term, definition", [
    ("Which json.tool option parses every input line as a separate JSON object?", "--json-lines",
     "Parse every input line as separate JSON object"),
    ("Which class uses os.urandom() to generate random numbers?", "class random.SystemRandom([seed])",
     "Class that uses the os.urandom() function"),
])
def test_a_definition_comes_with_its_term(question, term, definition):
    reply = _answer(question, JSON_TOOL)
    assert reply.answer.startswith(term + ": " + definition)  # the claim reads without the "¶"
    assert reply.citations[0].quote.startswith(term + "¶\n\n" + definition)


def test_a_section_heading_is_not_a_term():
    reply = _answer("What does --sort-keys do?", JSON_TOOL)
    assert "Command line options" not in reply.answer


def test_a_sentence_that_introduces_a_command_comes_with_it():
    reply = _answer("What do you run on Unix or MacOS?", VENV)
    assert reply.answer == "On Unix or MacOS, run: source tutorial-env/bin/activate [S1]."
    assert reply.citations[0].quote == "On Unix or MacOS, run:\n\nsource tutorial-env/bin/activate"


def test_a_sentence_before_a_code_block_is_still_an_answer():
    reply = _answer("What are syntax errors also known as?", VENV)
    assert "also known as parsing errors" in reply.answer and "SyntaxError" not in reply.answer


def test_an_index_is_quoted_as_written():
    reply = _answer("Where is the smallest element of a heap?", VENV)
    assert "heap[0]" in reply.answer


def test_the_answer_can_open_with_the_sentence_the_model_prefers():
    source = ("The Lumen kettle is a kettle that boils water, and the Lumen kettle takes water. "
              "The Lumen kettle heats a litre of water in three minutes.")
    question = "How long does the Lumen kettle take to boil water?"
    assert "three minutes" not in _answer(question, source, choose="relevance").answer  # the most similar
    assert "three minutes" in _answer(question, source).answer  # the default: choose="answerability"


RANDOM = normalize_text(html_to_text("""
<dl class="py function"><dt>random.choice(seq)<a class="headerlink" href="#c">¶</a></dt>
<dd><p>Return a random element from the non-empty sequence seq. If seq is empty, raises IndexError.</p></dd></dl>
<p>Python uses the Mersenne Twister as the core generator. It produces 53-bit precision floats and has a
period of 2**19937-1. The underlying implementation in C is both fast and threadsafe.</p>
<p>When a script file is used, it is sometimes useful to be able to run the script and enter interactive
mode afterwards. This can be done by passing -i before the script.</p>
"""))


def _reply(question: str, source: str, **options):
    """The reply and the verifier's labels of its claims."""
    backend = get_backend("extractive", **{**ALWAYS, "max_sentences": 1, **options})
    reply = parse_reply(backend.generate(GenerationRequest(question, {"S1": source})).text)
    assert all(c.quote in source for c in reply.citations)  # quotes stay verbatim
    return reply, [c.label for c in verify_answer(reply, {"S1": source}).claims]


def test_a_later_sentence_of_a_definition_comes_with_its_term():
    reply, labels = _reply("What does random.choice() raise if the sequence is empty?", RANDOM)
    assert reply.answer == "random.choice(seq): If seq is empty, raises IndexError [S1]."
    assert reply.citations[0].quote.startswith("random.choice(seq)¶\n\nReturn a random element")
    assert labels == ["supported"]


def test_a_sentence_that_points_back_comes_with_the_sentence_before_it():
    reply, labels = _reply("What is the period of the Mersenne Twister generator?", RANDOM)
    assert reply.answer == ("Python uses the Mersenne Twister as the core generator [S1]. It produces 53-bit "
                            "precision floats and has a period of 2**19937-1 [S1].")
    assert reply.citations[0].quote.endswith("core generator. It produces 53-bit precision floats and has a "
                                             "period of 2**19937-1.")
    assert labels == ["supported", "supported"]  # each sentence is its own cited claim


def test_the_answer_opens_with_a_sentence_and_the_one_that_continues_it():
    # the model scores the lead-in ("… run the script and enter interactive mode afterwards.") highest;
    # the candidate that says it and how it is done says all the lead-in says, so it opens the answer
    reply, labels = _reply("How do you run a script and then enter interactive mode afterwards?", RANDOM)
    assert "passing -i before the script" in reply.answer and labels == ["supported", "supported"]


def test_a_sentence_that_opens_its_paragraph_stands_alone():
    from citebound.generation.backends.extractive import source_candidates

    text = "Tokens need randomness.\n\nThis module provides tokens for password resets and similar uses."
    (_, second) = source_candidates(text, 1)
    assert second.text.startswith("This module") and second.said == ()  # no sentence before it in its paragraph


def test_a_sentence_in_context_is_scored_by_what_it_says():
    from citebound.generation.answerability import sentence_answerability
    from citebound.generation.backends.extractive import (
        ExtractiveBackend,
        candidate_answerability,
    )

    question = "What does random.choice() raise if the sequence is empty?"
    scored = ExtractiveBackend().score(question, {"S1": RANDOM})
    later = next(c for c in scored if c.said and len(c.said) == 1)  # the term and its later sentence
    assert later.model_texts == ("random.choice(seq): If seq is empty, raises IndexError.",
                                 "If seq is empty, raises IndexError.")
    assert candidate_answerability(question, [later]) == [max(sentence_answerability(question, later.model_texts))]


RANDOM_PAGE = normalize_text(html_to_text("""
<p>The Python Standard Library, version 3.11.</p>
<h1>random — Generate pseudo-random numbers<a class="headerlink" href="#r">¶</a></h1>
<p>This module implements pseudo-random number generators for various distributions.</p>
<p>Almost all module functions depend on the basic function random(), which generates a random float uniformly
in the half-open range 0.0 &lt;= X &lt; 1.0. Python uses the Mersenne Twister as the core generator. The
underlying implementation in C is both fast and threadsafe.</p>
"""))


def test_the_model_reads_a_sentence_under_its_heading():
    from citebound.generation.backends.extractive import (
        ExtractiveBackend,
        candidate_answerability,
    )

    question = "Which core generator does the random module use?"
    scored = ExtractiveBackend().score(question, {"S1": RANDOM_PAGE})
    mersenne = next(c for c in scored if "Mersenne" in c.text)
    assert mersenne.heading == "random — Generate pseudo-random numbers"  # without its "¶"
    assert mersenne.model_texts == (("random — Generate pseudo-random numbers: Python uses the Mersenne Twister "
                                     "as the core generator."),)
    # alone, the sentence does not say that Python's generator is the random module's
    # on the source's first line the heading may be the document's title, and is not read
    without = ExtractiveBackend().score(question, {"S1": RANDOM_PAGE.split("\n\n", 1)[1]})
    alone = next(c for c in without if "Mersenne" in c.text)
    assert alone.heading is None and alone.model_texts == ("Python uses the Mersenne Twister as the core generator.",)
    assert candidate_answerability(question, [mersenne])[0] > candidate_answerability(question, [alone])[0] + 0.3
    # at the default threshold the answer is given, and it is the sentence alone (the heading is not claimed)
    backend = get_backend("extractive", max_sentences=1)
    reply = parse_reply(backend.generate(GenerationRequest(question, {"S1": RANDOM_PAGE})).text)
    assert reply.answer == "Python uses the Mersenne Twister as the core generator [S1]."


def test_the_answer_opens_with_the_list_rather_than_one_of_its_items():
    from citebound.generation.backends.extractive import ExtractiveBackend, opening

    source = normalize_text(html_to_text("<p>Journals keep what a transaction changed.</p><h2>Journals</h2><p>The journal modes are:</p>"
                                         "<ul><li>DELETE, the default journal mode</li><li>WAL, write-ahead logging</li></ul>"))
    scored = ExtractiveBackend().score("Which journal modes are there?", {"S1": source})
    item = next(i for i, c in enumerate(scored) if c.text.startswith("- DELETE"))
    listed = next(i for i, c in enumerate(scored) if c.text.startswith("The journal modes are:"))
    probs = [0.9 if i == item else 0.6 if i == listed else 0.1 for i in range(len(scored))]
    assert opening(scored, probs) == listed  # it says all the item says, and more
    assert opening(scored, [0.9 if i == item else 0.1 for i in range(len(scored))]) == listed  # whatever its P
    other = next(i for i, c in enumerate(scored) if c.text.startswith("Journals keep"))
    assert opening(scored, [0.9 if i == other else 0.1 for i in range(len(scored))]) == other
