from citeproof.text.names import is_initial, is_organisation, name_key, surname_keys, surname_of


def test_surname_of_common_name_orders():
    assert surname_of("Hal Daumé III") == "Daumé"
    assert surname_of("Smith, J. A.") == "Smith"
    assert surname_of("Madeleine van Zuylen") == "van Zuylen"
    assert surname_of("van Zuylen, Madeleine") == "van Zuylen"
    assert surname_of("Smith JR") == "Smith"
    assert surname_of("Antonio J. Jimeno-Yepes") == "Jimeno-Yepes"
    assert surname_of("Vu Ha") == "Ha"
    assert surname_of("World Health Organization") == "World Health Organization"


def test_name_keys_fold_diacritics_and_particles():
    assert name_key("Daumé") == "daume"
    assert name_key("O'Neil") == "oneil"
    assert surname_keys("van der Maaten") == {"vandermaaten", "maaten"}


def test_initials_and_organisations():
    assert is_initial("J.") and is_initial("J.-P.") and is_initial("Ch.") and is_initial("JR")
    assert not is_initial("Li") and not is_initial("Wu")
    assert is_organisation("Association for Computing Machinery")
    assert not is_organisation("Paolo Ferragina and Ugo Scaiella")
