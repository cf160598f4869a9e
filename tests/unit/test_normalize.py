from citeproof.text.normalize import comparison_key, dehyphenate, fold_diacritics


def test_fold_diacritics_strips_accents_and_ligatures():
    assert (
        fold_diacritics("Müller–Šimić, Łukasz Ørsted, ﬁeld") == "Muller-Simic, Lukasz Orsted, field"
    )


def test_dehyphenate_joins_line_break_hyphens_only():
    assert dehyphenate("cita-\ntion and state-of-the-art") == "citation and state-of-the-art"
    assert dehyphenate("Smith-\nJones") == "Smith-\nJones"


def test_comparison_key_is_lowercase_ascii_words():
    assert comparison_key("  Attention Is All You Need!  ") == "attention is all you need"
    assert comparison_key("Déjà vu: a re-\nview") == "deja vu a review"
