"""How far an evidence region reaches: whole sentence pieces, `spread` more on each side, and (when asked) more pieces
until it spans a number of characters — a transcript's pieces are turns of a few words."""

from citefix.verify.local import widen

PIECES = [0, 10, 20, 30, 40]  # five pieces of ten characters, a text of 50


def test_a_window_widens_to_whole_pieces_and_its_spread():
    assert widen(PIECES, 50, 22, 25, 0) == (20, 30)
    assert widen(PIECES, 50, 22, 25, 1) == (10, 40)
    assert widen(PIECES, 50, 42, 45, 1) == (30, 50)  # the last piece ends where the text does
    assert widen([], 50, 22, 25, 1) == (0, 50)


def test_a_short_region_grows_a_piece_on_each_side_until_it_is_long_enough():
    assert widen(PIECES, 50, 22, 25, 0, min_chars=10) == (20, 30)  # long enough already
    assert widen(PIECES, 50, 22, 25, 0, min_chars=25) == (10, 40)
    assert widen(PIECES, 50, 2, 5, 0, min_chars=25) == (0, 30)  # at the start it can only grow one way
    assert widen(PIECES, 50, 22, 25, 0, min_chars=500) == (0, 50)  # never past the text
