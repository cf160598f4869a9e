from citeproof.text.sentences import sentence_index_at, split_sentences


def sentences(text: str) -> list[str]:
    return [text[start:end] for start, end in split_sentences(text)]


def test_plain_sentences_are_split():
    assert sentences("One fish. Two fish! Red fish? Blue fish.") == [
        "One fish.",
        "Two fish!",
        "Red fish?",
        "Blue fish.",
    ]


def test_spans_index_the_original_text_and_trim_whitespace():
    text = "  First sentence here.   Second one.\n"
    spans = split_sentences(text)
    assert spans == [(2, 22), (25, 36)]
    assert text[25:36] == "Second one."


def test_et_al_mid_sentence_does_not_split():
    text = "Smith et al. (2020) showed this. Jones et al. Found nothing is rare."
    assert sentences(text)[0] == "Smith et al. (2020) showed this."


def test_common_abbreviations_do_not_split():
    text = (
        "Several models, e.g. BERT and GPT, were used. Results i.e. Table 2 differ. "
        "See Fig. 3 and Eq. 2 for details. BERT vs. GPT is compared in Sec. 4. Done."
    )
    assert sentences(text) == [
        "Several models, e.g. BERT and GPT, were used.",
        "Results i.e. Table 2 differ.",
        "See Fig. 3 and Eq. 2 for details.",
        "BERT vs. GPT is compared in Sec. 4.",
        "Done.",
    ]


def test_initials_and_dotted_abbreviations_do_not_split():
    text = "As J. R. Smith noted, the U.S. Army agreed. A second sentence."
    assert sentences(text) == [
        "As J. R. Smith noted, the U.S. Army agreed.",
        "A second sentence.",
    ]


def test_decimals_do_not_split():
    text = "The score rose from 3.5 to 4.25 points. It then fell."
    assert sentences(text) == [
        "The score rose from 3.5 to 4.25 points.",
        "It then fell.",
    ]


def test_citation_marker_before_the_period_stays_in_sentence():
    text = "Transformers dominate NLP [3, 7]. Parsing is solved (Smith et al., 2020a). Next."
    assert sentences(text) == [
        "Transformers dominate NLP [3, 7].",
        "Parsing is solved (Smith et al., 2020a).",
        "Next.",
    ]


def test_numeric_marker_after_the_period_belongs_to_previous_sentence():
    text = "Transformers dominate NLP. [3] Parsing is solved."
    assert sentences(text) == ["Transformers dominate NLP. [3]", "Parsing is solved."]


def test_lowercase_continuation_is_not_a_boundary():
    text = "It costs approx. ten dollars and lasts about 3 hrs. on average. Fine."
    assert sentences(text) == [
        "It costs approx. ten dollars and lasts about 3 hrs. on average.",
        "Fine.",
    ]


def test_blank_line_ends_a_sentence_even_without_punctuation():
    text = "1 Introduction\n\nCitation checking is hard. It matters."
    assert sentences(text) == [
        "1 Introduction",
        "Citation checking is hard.",
        "It matters.",
    ]


def test_wrapped_lines_are_one_sentence():
    text = "This sentence is wrapped\nover two lines. And this one\nis too."
    assert sentences(text) == [
        "This sentence is wrapped\nover two lines.",
        "And this one\nis too.",
    ]


def test_closing_quote_and_bracket_belong_to_sentence():
    text = 'He said "it works." Then (in brackets.) Another.'
    assert sentences(text) == ['He said "it works."', "Then (in brackets.)", "Another."]


def test_sentence_ending_with_number_splits():
    text = "The effect is described in Section 3. We now turn to results."
    assert sentences(text) == [
        "The effect is described in Section 3.",
        "We now turn to results.",
    ]


def test_empty_and_whitespace_text():
    assert split_sentences("") == []
    assert split_sentences("   \n\n  ") == []


def test_sentence_index_at_finds_containing_span():
    text = "First one. Second one."
    spans = split_sentences(text)
    assert sentence_index_at(spans, 0) == 0
    assert sentence_index_at(spans, text.index("Second")) == 1
    assert sentence_index_at(spans, text.index(" Second")) is None
    assert sentence_index_at(spans, len(text) + 5) is None


def test_numbered_abbreviations_only_continue_before_numbers():
    text = "See p. 45 and No. 7 in App. A here. The answer is no. Then we stop."
    assert sentences(text) == [
        "See p. 45 and No. 7 in App. A here.",
        "The answer is no.",
        "Then we stop.",
    ]


def test_greek_symbol_can_start_a_sentence():
    text = "Skin pixels come from a dataset [5]. µskin and σskin are estimated from it."
    assert sentences(text) == [
        "Skin pixels come from a dataset [5].",
        "µskin and σskin are estimated from it.",
    ]
