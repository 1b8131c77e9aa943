//! Rule tests: every case of protocol.md §4 and §6 items 49-55, drawn as ASCII boards
//! (row 0 first; `X` black, `O` white, `.` empty; coordinates are `(x, y)` = (column, row)),
//! plus randomised cross-checks against a naive, independent referee written here.

use super::*;
use crate::board::{Board, Cell, Pos, Stone};
use std::sync::{Arc, Mutex};

use rand::{rngs::StdRng, Rng, SeedableRng};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// One pattern table per rule, built once for the whole test binary.
fn table(rule: Rule) -> Arc<PatternTable> {
    static CACHE: Mutex<Vec<(Rule, Arc<PatternTable>)>> = Mutex::new(Vec::new());
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, t)) = cache.iter().find(|(r, _)| *r == rule) {
        return t.clone();
    }
    let t = Arc::new(PatternTable::new(rule));
    cache.push((rule, t.clone()));
    t
}

/// A board drawn in ASCII under `rule`.
fn board(rule: Rule, text: &str) -> Board {
    Board::from_ascii(text, table(rule)).expect("valid ASCII board")
}

fn p(x: usize, y: usize) -> Pos {
    Pos::from_xy(x, y)
}

/// A 15x15 board from a move string in "pos" notation (`h8h9...`: letter = x from 'a',
/// number = y + 1), black first.
fn from_moves(rule: Rule, moves: &str) -> Board {
    let mut b = Board::new(15, 15, table(rule)).expect("15x15");
    let chars: Vec<char> = moves.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let x = chars[i] as usize - 'a' as usize;
        i += 1;
        let mut y = 0;
        while i < chars.len() && chars[i].is_ascii_digit() {
            y = y * 10 + chars[i].to_digit(10).expect("digit") as usize;
            i += 1;
        }
        b.make(p(x, y - 1));
    }
    b
}

/// Asserts that `drawn` (whitespace ignored) is exactly the position of `b`.
fn assert_drawn(b: &Board, drawn: &str) {
    let strip = |s: &str| -> String {
        s.lines()
            .map(|l| l.chars().filter(|c| !c.is_whitespace()).collect::<String>())
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&b.to_ascii()), strip(drawn), "drawing does not match");
}

/// `is_forbidden` on a copy (the function needs `&mut` but must restore the board).
fn forbidden(b: &Board, x: usize, y: usize) -> bool {
    let mut copy = b.clone();
    let before = copy.to_ascii();
    let f = is_forbidden(&mut copy, p(x, y));
    assert_eq!(
        copy.to_ascii(),
        before,
        "is_forbidden must restore the board"
    );
    f
}

/// All empty squares where black is forbidden, in board order.
fn forbidden_points(b: &Board) -> Vec<(usize, usize)> {
    let mut copy = b.clone();
    let squares: Vec<Pos> = b.squares().filter(|&q| b.is_empty(q)).collect();
    squares
        .into_iter()
        .filter(|&q| is_forbidden(&mut copy, q))
        .map(|q| (q.x(), q.y()))
        .collect()
}

fn wins(b: &Board, x: usize, y: usize, stone: Stone) -> bool {
    b.is_winning_move(p(x, y), stone)
}

// ---------------------------------------------------------------------------------------------
// 1. INFO rule decoding
// ---------------------------------------------------------------------------------------------

#[test]
fn info_rule_bits_decode_as_piskvork_and_yixin_send_them() {
    assert_eq!(Rule::from_info_bits(0), Some(Rule::Freestyle));
    assert_eq!(Rule::from_info_bits(1), Some(Rule::Standard));
    // Yixin-Board / Rapfi send a lone 2 for renju.
    assert_eq!(Rule::from_info_bits(2), Some(Rule::Renju));
    assert_eq!(Rule::from_info_bits(4), Some(Rule::Renju));
    assert_eq!(Rule::from_info_bits(5), Some(Rule::Renju));
    assert_eq!(Rule::from_info_bits(8), Some(Rule::CaroOverline));
    assert_eq!(Rule::from_info_bits(9), Some(Rule::Caro));
    // Continuous-game bit 2 next to exact five is ignored.
    assert_eq!(Rule::from_info_bits(3), Some(Rule::Standard));
    assert_eq!(Rule::from_info_bits(-1), None);
    assert_eq!(Rule::from_info_bits(16), None);
    assert_eq!(Rule::from_info_bits(i64::MAX), None);
    for rule in Rule::ALL {
        assert_eq!(Rule::from_info_bits(rule.info_bits()), Some(rule));
        assert_eq!(Rule::from_name(rule.name()), Some(rule));
    }
}

// ---------------------------------------------------------------------------------------------
// 2. Freestyle and exact five
// ---------------------------------------------------------------------------------------------

/// Rows: black four, black `XXX_XX`, white four, white `OOO_OO`.
const FIVES_AND_SIXES: &str = "
    . . . . . . . . . . .
    . X X X X . . . . . .
    . . . . . . . . . . .
    . X X X . X X . . . .
    . . . . . . . . . . .
    . O O O O . . . . . .
    . . . . . . . . . . .
    . O O O . O O . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
";

#[test]
fn freestyle_five_and_overline_win_for_both_colours() {
    let b = board(Rule::Freestyle, FIVES_AND_SIXES);
    assert_eq!(b.side_to_move(), Stone::Black);
    // Five.
    assert!(wins(&b, 0, 1, Stone::Black));
    assert!(wins(&b, 5, 1, Stone::Black));
    assert!(wins(&b, 0, 5, Stone::White));
    assert!(wins(&b, 5, 5, Stone::White));
    // Six (overline) also wins in freestyle.
    assert!(wins(&b, 4, 3, Stone::Black));
    assert!(wins(&b, 4, 7, Stone::White));
    assert_eq!(b.threat(p(4, 3), Stone::Black), Threat::Five);
    assert_eq!(b.pattern(p(4, 3), 0, Stone::Black), Pattern::F5);
    // The other colour gets nothing there.
    assert!(!wins(&b, 4, 3, Stone::White));
    assert!(!wins(&b, 5, 1, Stone::White));
    assert_eq!(b.threat_count(Stone::Black, Threat::Five), 3);
    assert_eq!(b.threat_count(Stone::White, Threat::Five), 3);
}

#[test]
fn exact_five_wins_and_six_does_not_for_either_colour() {
    let b = board(Rule::Standard, FIVES_AND_SIXES);
    assert!(wins(&b, 0, 1, Stone::Black));
    assert!(wins(&b, 5, 1, Stone::Black));
    assert!(wins(&b, 0, 5, Stone::White));
    assert!(wins(&b, 5, 5, Stone::White));
    // Six is not a win, for black or white.
    assert!(!wins(&b, 4, 3, Stone::Black));
    assert!(!wins(&b, 4, 7, Stone::White));
    assert_eq!(b.pattern(p(4, 3), 0, Stone::Black), Pattern::Overline);
    assert_eq!(b.pattern(p(4, 7), 0, Stone::White), Pattern::Overline);
    assert_ne!(b.threat(p(4, 3), Stone::Black), Threat::Five);
    assert_ne!(b.threat(p(4, 3), Stone::Black), Threat::Forbidden);
    assert_eq!(b.threat_count(Stone::Black, Threat::Five), 2);
    assert_eq!(b.threat_count(Stone::White, Threat::Five), 2);
    // Nothing is forbidden outside renju.
    assert!(!forbidden(&b, 4, 3));
}

/// §4.2 / §6 item 50: `h8h9i8h10g8h11j13h12g14h14i15`, white to move.
const ITEM_50: &str = "
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . X X X . . . . . .
    . . . . . . . O . . . . . . .
    . . . . . . . O . . . . . . .
    . . . . . . . O . . . . . . .
    . . . . . . . O . . . . . . .
    . . . . . . . . . X . . . . .
    . . . . . . X O . . . . . . .
    . . . . . . . . X . . . . . .
";

#[test]
fn item_50_white_six_wins_only_in_freestyle() {
    let moves = "h8h9i8h10g8h11j13h12g14h14i15";
    let std = from_moves(Rule::Standard, moves);
    assert_drawn(&std, ITEM_50);
    assert_eq!(std.side_to_move(), Stone::White);
    assert_eq!(board(Rule::Standard, ITEM_50).side_to_move(), Stone::White);
    // h13 = (7,12) makes six: no win under exact five, and white has no five anywhere.
    assert!(!wins(&std, 7, 12, Stone::White));
    assert!(std.cells_with(Stone::White, Threat::Five).is_empty());
    // Black's open three g8-i8 must be blocked at f8 / j8 (each makes a straight four).
    assert_eq!(std.threat(p(5, 7), Stone::Black), Threat::FlexFour);
    assert_eq!(std.threat(p(9, 7), Stone::Black), Threat::FlexFour);

    let free = from_moves(Rule::Freestyle, moves);
    assert!(wins(&free, 7, 12, Stone::White));
    assert_eq!(free.cells_with(Stone::White, Threat::Five), vec![p(7, 12)]);
}

/// §6 item 54: white `OOOO_O` between black stones, white to move (black fillers in corners).
const ITEM_54: &str = "
    X . . . . . . . . . . . . . X
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . X O O O O . O X . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    X . . . . . . . . . . . . . X
";

#[test]
fn item_54_white_overline_wins_in_renju_freestyle_caro8_not_standard_caro9() {
    for (rule, expected) in [
        (Rule::Renju, true),
        (Rule::Freestyle, true),
        (Rule::Standard, false),
        (Rule::CaroOverline, true),
        (Rule::Caro, false),
    ] {
        let b = board(rule, ITEM_54);
        assert_eq!(b.side_to_move(), Stone::White);
        assert_eq!(wins(&b, 7, 7, Stone::White), expected, "{}", rule.name());
        // White is never restricted.
        assert_ne!(b.threat(p(7, 7), Stone::White), Threat::Forbidden);
    }
}

/// §6 item 55: black `XXXX_X` with a white stone on the left, black to move.
const ITEM_55: &str = "
    O . . . . . . . . . . . . . O
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . O X X X X . X . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    O . . . . . . . . . . . . . O
";

#[test]
fn item_55_black_six_forbidden_in_renju_wins_in_freestyle_not_in_standard() {
    let renju = board(Rule::Renju, ITEM_55);
    assert_eq!(renju.side_to_move(), Stone::Black);
    assert!(forbidden(&renju, 7, 7));
    assert_eq!(renju.threat(p(7, 7), Stone::Black), Threat::Forbidden);
    assert!(!wins(&renju, 7, 7, Stone::Black));

    let free = board(Rule::Freestyle, ITEM_55);
    assert!(wins(&free, 7, 7, Stone::Black));
    assert!(!forbidden(&free, 7, 7));

    let std = board(Rule::Standard, ITEM_55);
    assert!(!wins(&std, 7, 7, Stone::Black));
    assert!(!forbidden(&std, 7, 7));
}

/// §6 item 49: black to move after `h8h9i8i9j8j9k8k9` wins at 6,7 or 11,7 under every rule.
#[test]
fn item_49_open_four_wins_under_every_rule() {
    for rule in Rule::ALL {
        let b = from_moves(rule, "h8h9i8i9j8j9k8k9");
        assert_eq!(b.side_to_move(), Stone::Black);
        assert_eq!(
            b.cells_with(Stone::Black, Threat::Five),
            vec![p(6, 7), p(11, 7)],
            "{}",
            rule.name()
        );
        assert!(forbidden_points(&b).is_empty(), "{}", rule.name());
    }
}

// ---------------------------------------------------------------------------------------------
// 3. Renju, from black's point of view
// ---------------------------------------------------------------------------------------------

#[test]
fn renju_simple_double_three_is_forbidden() {
    // Target (6,5): horizontal (4,5)(5,5) and vertical (6,3)(6,4), both open.
    let text = "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . X . . . .
        . . . . . . X . . . .
        . . . . X X . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
    ";
    let b = board(Rule::Renju, text);
    assert_eq!(b.pattern(p(6, 5), 0, Stone::Black), Pattern::F3);
    assert_eq!(b.pattern(p(6, 5), 1, Stone::Black), Pattern::F3);
    assert_eq!(b.threat(p(6, 5), Stone::Black), Threat::ThreeThree);
    assert!(b.cell_info(p(6, 5), Stone::Black).needs_forbid_check);
    assert!(forbidden(&b, 6, 5));
    assert_eq!(forbidden_points(&b), vec![(6, 5)]);
    // Same shape is fine in freestyle.
    let free = board(Rule::Freestyle, text);
    assert_eq!(free.threat(p(6, 5), Stone::Black), Threat::ThreeThree);
    assert!(!forbidden(&free, 6, 5));
}

#[test]
fn renju_three_blocked_by_white_does_not_count() {
    // As above, but white (7,5) closes the horizontal three: `..XXXO` is only a closed three.
    let b = board(
        Rule::Renju,
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . X . . . .
        . . . . . . X . . . .
        . . . . X X . O . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        ",
    );
    assert_eq!(b.pattern(p(6, 5), 0, Stone::Black), Pattern::B3);
    assert_eq!(b.pattern(p(6, 5), 1, Stone::Black), Pattern::F3);
    assert_eq!(b.threat(p(6, 5), Stone::Black), Threat::Three);
    assert!(!forbidden(&b, 6, 5));
    assert!(forbidden_points(&b).is_empty());
}

#[test]
fn renju_five_with_double_four_is_allowed_and_wins() {
    // (5,5): horizontal five (1..5,5) plus vertical and diagonal fours.
    let with_five = "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . X . . X . . . . .
        . . . X . X . . . . .
        . . . . X X . . . . .
        . X X X X . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
    ";
    let b = board(Rule::Renju, with_five);
    assert_eq!(b.threat(p(5, 5), Stone::Black), Threat::Five);
    assert!(wins(&b, 5, 5, Stone::Black));
    assert!(!forbidden(&b, 5, 5));
    // Control: without the horizontal stones the same point is a double four.
    let without_five = "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . X . . X . . . . .
        . . . X . X . . . . .
        . . . . X X . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
    ";
    let c = board(Rule::Renju, without_five);
    assert_eq!(c.threat(p(5, 5), Stone::Black), Threat::Forbidden);
    assert!(forbidden(&c, 5, 5));
    assert!(!wins(&c, 5, 5, Stone::Black));
}

#[test]
fn renju_overline_is_forbidden_for_black() {
    let text = "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . X X X . X X . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
    ";
    let b = board(Rule::Renju, text);
    assert_eq!(b.pattern(p(4, 5), 0, Stone::Black), Pattern::Overline);
    assert_eq!(b.threat(p(4, 5), Stone::Black), Threat::Forbidden);
    assert!(forbidden(&b, 4, 5));
    assert!(!wins(&b, 4, 5, Stone::Black));
    assert_eq!(forbidden_points(&b), vec![(4, 5)]);
}

#[test]
fn renju_five_in_one_line_with_overline_in_another_is_allowed() {
    // (5,5): horizontal exact five (1..5), vertical six (2..7).
    let b = board(
        Rule::Renju,
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        . X X X X . . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        ",
    );
    assert_eq!(b.pattern(p(5, 5), 0, Stone::Black), Pattern::F5);
    assert_eq!(b.pattern(p(5, 5), 1, Stone::Black), Pattern::Overline);
    assert_eq!(b.threat(p(5, 5), Stone::Black), Threat::Five);
    assert!(wins(&b, 5, 5, Stone::Black));
    assert!(!forbidden(&b, 5, 5));
}

#[test]
fn renju_two_fours_on_one_line_are_a_double_four() {
    // `XXX_X_XXX`, `X_XXX_X` and `XX_XX_XX`, the new stone ((5,2), (5,2), (4,2)) inside.
    for (text, x) in [
        (
            "
            . . . . . . . . . . .
            . . . . . . . . . . .
            . X X X . . . X X X .
            . . . . . . . . . . .
            . . . . . . . . . . .
            ",
            5,
        ),
        (
            "
            . . . . . . . . . . .
            . . . . . . . . . . .
            . . X . X . X . X . .
            . . . . . . . . . . .
            . . . . . . . . . . .
            ",
            5,
        ),
        (
            "
            . . . . . . . . . . .
            . . . . . . . . . . .
            . X X . . X . X X . .
            . . . . . . . . . . .
            . . . . . . . . . . .
            ",
            4,
        ),
    ] {
        let b = board(Rule::Renju, text);
        assert_eq!(
            b.pattern(p(x, 2), 0, Stone::Black),
            Pattern::DoubleB4,
            "{text}"
        );
        assert_eq!(b.threat(p(x, 2), Stone::Black), Threat::Forbidden, "{text}");
        assert!(forbidden(&b, x, 2), "{text}");
        assert!(!wins(&b, x, 2, Stone::Black), "{text}");
        // White making the same shape is a (winning) double four, never forbidden.
        let w = board(Rule::Renju, &text.replace('X', "O"));
        assert_eq!(w.threat(p(x, 2), Stone::White), Threat::FlexFour, "{text}");
    }
}

#[test]
fn renju_four_three_is_allowed() {
    // (5,5): closed four `OXXXX_` horizontally, open three vertically.
    let b = board(
        Rule::Renju,
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        . O X X X . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        ",
    );
    assert_eq!(b.pattern(p(5, 5), 0, Stone::Black), Pattern::B4);
    assert_eq!(b.pattern(p(5, 5), 1, Stone::Black), Pattern::F3);
    assert_eq!(b.threat(p(5, 5), Stone::Black), Threat::FourThree);
    assert!(!forbidden(&b, 5, 5));
}

#[test]
fn renju_double_four_on_two_lines_is_forbidden() {
    // (5,5): two closed fours, `OXXXX_` horizontally and vertically.
    let text = "
        . . . . . . . . . . .
        . . . . . O . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        . O X X X . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
    ";
    let b = board(Rule::Renju, text);
    assert_eq!(b.pattern(p(5, 5), 0, Stone::Black), Pattern::B4);
    assert_eq!(b.pattern(p(5, 5), 1, Stone::Black), Pattern::B4);
    assert_eq!(b.threat(p(5, 5), Stone::Black), Threat::Forbidden);
    assert!(forbidden(&b, 5, 5));
    // Outside renju two fours are a winning threat.
    let std = board(Rule::Standard, text);
    assert_eq!(std.threat(p(5, 5), Stone::Black), Threat::FlexFour);
}

#[test]
fn renju_three_touching_the_edge_is_not_an_open_three() {
    // (2,5): `|XXX...` horizontally (edge-bound, closed) plus an open vertical three.
    let at_edge = board(
        Rule::Renju,
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . X . . . . . . . .
        . . X . . . . . . . .
        X X . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        ",
    );
    assert_eq!(at_edge.pattern(p(2, 5), 0, Stone::Black), Pattern::B3);
    assert_eq!(at_edge.threat(p(2, 5), Stone::Black), Threat::Three);
    assert!(!forbidden(&at_edge, 2, 5));
    // One square further in, `|.XXX..` can still become `|.XXXX.`: an open three.
    let one_in = board(
        Rule::Renju,
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . X . . . . . . .
        . . . X . . . . . . .
        . X X . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        ",
    );
    assert_eq!(one_in.pattern(p(3, 5), 0, Stone::Black), Pattern::F3);
    assert!(forbidden(&one_in, 3, 5));
}

/// §4.3 "fake three": black 4,3 5,4 7,6 7,7 8,5 9,7; target 6,7.
const FAKE_THREE: &str = "
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . X . . . . . . . . . .
    . . . . . X . . . . . . . . .
    . . . . . . . . X . . . . . .
    . . . . . . . X . . . . . . .
    . . . . . . . X . X . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
";

#[test]
fn renju_fake_three_whose_only_straight_four_square_is_a_double_four_is_allowed() {
    let b = board(Rule::Renju, FAKE_THREE);
    // (6,7) makes `_XX_X_` horizontally (straight-four square (8,7) only) and an open
    // anti-diagonal three (6,7)(7,6)(8,5).
    assert_eq!(b.pattern(p(6, 7), 0, Stone::Black), Pattern::F3);
    assert_eq!(b.pattern(p(6, 7), 3, Stone::Black), Pattern::F3);
    assert_eq!(b.threat(p(6, 7), Stone::Black), Threat::ThreeThree);
    assert!(b.cell_info(p(6, 7), Stone::Black).needs_forbid_check);
    assert!(!forbidden(&b, 6, 7));
    // Why: after (6,7), the square (8,7) is a straight four plus the diagonal four
    // (4,3)(5,4)_(7,6)(8,7): a double four.
    let mut after = b.clone();
    after.put(p(6, 7), Stone::Black);
    assert_eq!(after.pattern(p(8, 7), 0, Stone::Black), Pattern::F4);
    assert_eq!(after.pattern(p(8, 7), 2, Stone::Black), Pattern::B4);
    assert!(forbidden(&after, 8, 7));
}

/// §6 item 51: `h8h9i7i9h10i6i11i12`, black to move.
const ITEM_51: &str = "
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . O . . . . . .
    . . . . . . . . X . . . . . .
    . . . . . . . X . . . . . . .
    . . . . . . . O O . . . . . .
    . . . . . . . X . . . . . . .
    . . . . . . . . X . . . . . .
    . . . . . . . . O . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
";

#[test]
fn item_51_g9_is_the_only_forbidden_point() {
    let b = from_moves(Rule::Renju, "h8h9i7i9h10i6i11i12");
    assert_drawn(&b, ITEM_51);
    assert_eq!(b.side_to_move(), Stone::Black);
    assert!(forbidden(&b, 6, 8));
    assert_eq!(b.threat(p(6, 8), Stone::Black), Threat::ThreeThree);
    assert_eq!(forbidden_points(&b), vec![(6, 8)]);
    // The same position under the other rules has no forbidden point.
    for rule in [
        Rule::Freestyle,
        Rule::Standard,
        Rule::CaroOverline,
        Rule::Caro,
    ] {
        let o = from_moves(rule, "h8h9i7i9h10i6i11i12");
        assert!(forbidden_points(&o).is_empty(), "{}", rule.name());
    }
}

#[test]
fn renju_white_is_never_restricted() {
    // White double three at (6,5) and white overline at (4,9).
    let b = board(
        Rule::Renju,
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . O . . . .
        . . . . . . O . . . .
        . . . . O O . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . O O O . O O . . . .
        . . . . . . . . . . .
        ",
    );
    assert_eq!(b.threat(p(6, 5), Stone::White), Threat::ThreeThree);
    assert!(!b.cell_info(p(6, 5), Stone::White).needs_forbid_check);
    assert_eq!(b.threat(p(4, 9), Stone::White), Threat::Five);
    assert!(wins(&b, 4, 9, Stone::White));
    assert_eq!(b.threat_count(Stone::White, Threat::Forbidden), 0);
    // is_forbidden is about black: these squares are harmless for black.
    assert!(forbidden_points(&b).is_empty());

    // The mirrored black position: double three and overline forbidden, six is no win.
    let black = board(
        Rule::Renju,
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . X . . . .
        . . . . . . X . . . .
        . . . . X X . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . X X X . X X . . . .
        . . . . . . . . . . .
        ",
    );
    assert!(!wins(&black, 4, 9, Stone::Black));
    assert_eq!(forbidden_points(&black), vec![(6, 5), (4, 9)]);
}

// ---------------------------------------------------------------------------------------------
// 4. Caro (rule 9 = Rule::Caro, rule 8 = Rule::CaroOverline)
// ---------------------------------------------------------------------------------------------

#[test]
fn caro_five_blocked_at_both_ends_is_not_a_win() {
    // `OXXXX_O`: filling (6,2) gives `OXXXXXO`.
    let text = "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . O X X X X . O . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
    ";
    for rule in [Rule::Caro, Rule::CaroOverline] {
        let b = board(rule, text);
        assert!(!wins(&b, 6, 2, Stone::Black), "{}", rule.name());
        assert_ne!(b.pattern(p(6, 2), 0, Stone::Black), Pattern::F5);
    }
    for rule in [Rule::Freestyle, Rule::Standard] {
        assert!(
            wins(&board(rule, text), 6, 2, Stone::Black),
            "{}",
            rule.name()
        );
    }
    // The same for white.
    let w = board(
        Rule::Caro,
        &text.replace('X', "x").replace('O', "X").replace('x', "O"),
    );
    assert!(!wins(&w, 6, 2, Stone::White));
}

#[test]
fn caro_five_blocked_at_one_end_wins() {
    let text = "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . O X X X X . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
    ";
    for rule in [Rule::Caro, Rule::CaroOverline] {
        let b = board(rule, text);
        assert!(wins(&b, 6, 2, Stone::Black), "{}", rule.name());
        assert_eq!(b.pattern(p(6, 2), 0, Stone::Black), Pattern::F5);
    }
}

#[test]
fn caro_board_edge_does_not_block() {
    // Row 1: `|XXXX_O`, row 3: `O_XXXX|`; both fives touch the edge with white at the other end.
    let text = "
        . . . . . . . . . . .
        X X X X . O . . . . .
        . . . . . . . . . . .
        . . . . . O . X X X X
        . . . . . . . . . . .
    ";
    for rule in [Rule::Caro, Rule::CaroOverline] {
        let b = board(rule, text);
        assert!(wins(&b, 4, 1, Stone::Black), "{}", rule.name());
        assert!(wins(&b, 6, 3, Stone::Black), "{}", rule.name());
    }
    // A five that spans a 5-wide board (edge at both ends) wins too.
    let narrow = "
        . . . . .
        X X X X .
        . . . . .
        . . . . .
        . . . . .
    ";
    for rule in [Rule::Caro, Rule::CaroOverline] {
        assert!(
            wins(&board(rule, narrow), 4, 1, Stone::Black),
            "{}",
            rule.name()
        );
    }
}

#[test]
fn caro_overline_wins_under_rule_8_only() {
    // Row 1: open `XXX_XX`; row 3: `OXXX_XXO`, a six blocked at both ends.
    let text = "
        . . . . . . . . . . .
        . X X X . X X . . . .
        . . . . . . . . . . .
        O X X X . X X O . . .
        . . . . . . . . . . .
    ";
    let eight = board(Rule::CaroOverline, text);
    assert!(wins(&eight, 4, 1, Stone::Black));
    assert!(wins(&eight, 4, 3, Stone::Black));
    let nine = board(Rule::Caro, text);
    assert!(!wins(&nine, 4, 1, Stone::Black));
    assert!(!wins(&nine, 4, 3, Stone::Black));
    assert_eq!(nine.pattern(p(4, 1), 0, Stone::Black), Pattern::Overline);
}

#[test]
fn caro_four_that_can_only_make_a_blocked_five_is_not_a_four() {
    // `O_XXX_O`: any five here would be blocked at both ends.
    let text = "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . O . X X X . O . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
    ";
    for rule in [Rule::Caro, Rule::CaroOverline] {
        let b = board(rule, text);
        assert_eq!(
            b.pattern(p(2, 2), 0, Stone::Black),
            Pattern::Dead,
            "{}",
            rule.name()
        );
        assert_eq!(
            b.pattern(p(6, 2), 0, Stone::Black),
            Pattern::Dead,
            "{}",
            rule.name()
        );
    }
    let free = board(Rule::Freestyle, text);
    assert_eq!(free.pattern(p(2, 2), 0, Stone::Black), Pattern::B4);
    assert_eq!(free.threat(p(2, 2), Stone::Black), Threat::Four);
}

/// §4.4 / §6 item 52: `h8f8g8f9i8f7j8l8`, black to move.
const ITEM_52: &str = "
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . O . . . . . . . . .
    . . . . . O X X X X . O . . .
    . . . . . O . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
";

#[test]
fn item_52_k8_is_a_blocked_five_under_caro_and_a_win_in_freestyle() {
    let moves = "h8f8g8f9i8f7j8l8";
    for rule in [Rule::CaroOverline, Rule::Caro] {
        let b = from_moves(rule, moves);
        assert_drawn(&b, ITEM_52);
        assert_eq!(b.side_to_move(), Stone::Black);
        assert!(!wins(&b, 10, 7, Stone::Black), "{}", rule.name());
        assert!(b.cells_with(Stone::Black, Threat::Five).is_empty());
        // White's open vertical three f7-f9: f5/f6/f10/f11 are its straight-four / four points.
        assert_eq!(b.threat(p(5, 5), Stone::White), Threat::FlexFour);
        assert_eq!(b.threat(p(5, 9), Stone::White), Threat::FlexFour);
    }
    let free = from_moves(Rule::Freestyle, moves);
    assert!(wins(&free, 10, 7, Stone::Black));
    assert_eq!(free.cells_with(Stone::Black, Threat::Five), vec![p(10, 7)]);
}

// ---------------------------------------------------------------------------------------------
// 5. Line patterns (freestyle unless stated)
// ---------------------------------------------------------------------------------------------

#[test]
fn pattern_open_two_makes_open_three_at_both_ends() {
    // `...XX....`: (2,2) and (5,2) give `_XXX_`; (1,2) and (6,2) give broken threes.
    let b = board(
        Rule::Freestyle,
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . X X . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        ",
    );
    for x in [1, 2, 5, 6] {
        assert_eq!(b.pattern(p(x, 2), 0, Stone::Black), Pattern::F3, "x={x}");
        assert_eq!(b.threat(p(x, 2), Stone::Black), Threat::Three, "x={x}");
    }
    assert_eq!(b.pattern(p(3, 2), 0, Stone::White), Pattern::Dead);
}

#[test]
fn pattern_open_three_ends_make_straight_fours() {
    // `_XXX_`: both ends give `_XXXX_` (FlexFour); one further out, `X_XXX` is a four.
    let b = board(
        Rule::Freestyle,
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . X X X . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        ",
    );
    for x in [2, 6] {
        assert_eq!(b.pattern(p(x, 2), 0, Stone::Black), Pattern::F4, "x={x}");
        assert_eq!(b.threat(p(x, 2), Stone::Black), Threat::FlexFour, "x={x}");
    }
    for x in [1, 7] {
        assert_eq!(b.pattern(p(x, 2), 0, Stone::Black), Pattern::B4, "x={x}");
        assert_eq!(b.threat(p(x, 2), Stone::Black), Threat::Four, "x={x}");
    }
    assert_eq!(b.threat_count(Stone::Black, Threat::FlexFour), 2);
}

#[test]
fn pattern_broken_three_gap_gives_open_three_and_straight_four() {
    // Row 1 `X..X`: either gap square makes a broken three (`_XX_X_`).
    // Row 3 `_XX_X_`: the gap makes a straight four; the ends make (closed) fours.
    let b = board(
        Rule::Freestyle,
        "
        . . . . . . . . . . .
        . . . X . . X . . . .
        . . . . . . . . . . .
        . . . X X . X . . . .
        . . . . . . . . . . .
        ",
    );
    assert_eq!(b.pattern(p(4, 1), 0, Stone::Black), Pattern::F3);
    assert_eq!(b.pattern(p(5, 1), 0, Stone::Black), Pattern::F3);
    assert_eq!(b.pattern(p(5, 3), 0, Stone::Black), Pattern::F4);
    assert_eq!(b.threat(p(5, 3), Stone::Black), Threat::FlexFour);
    assert_eq!(b.pattern(p(2, 3), 0, Stone::Black), Pattern::B4);
    assert_eq!(b.pattern(p(7, 3), 0, Stone::Black), Pattern::B4);
}

#[test]
fn pattern_closed_three_and_dead_space() {
    // Row 1 `OXX__..`: (3,1) gives `OXXX__` = B3; row 3 `OXX_O` has no room for five.
    let b = board(
        Rule::Freestyle,
        "
        . . . . . . . . . . .
        O X X . . . . . . . .
        . . . . . . . . . . .
        O X X . O . . . . . .
        . . . . . . . . . . .
        ",
    );
    assert_eq!(b.pattern(p(3, 1), 0, Stone::Black), Pattern::B3);
    assert_eq!(b.pattern(p(4, 1), 0, Stone::Black), Pattern::B3);
    assert_eq!(b.threat(p(3, 1), Stone::Black), Threat::Minor);
    assert_eq!(b.pattern(p(3, 3), 0, Stone::Black), Pattern::Dead);
    // The edge acts like a closed end: `|XX_...` → (2,*) is only a closed three.
    let edge = board(
        Rule::Freestyle,
        "
        . . . . . . . . . . .
        X X . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        ",
    );
    assert_eq!(edge.pattern(p(2, 1), 0, Stone::Black), Pattern::B3);
}

#[test]
fn pattern_straight_four_has_five_points_at_both_ends() {
    let b = board(
        Rule::Freestyle,
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . X X X X . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        ",
    );
    assert_eq!(b.pattern(p(1, 2), 0, Stone::Black), Pattern::F5);
    assert_eq!(b.pattern(p(6, 2), 0, Stone::Black), Pattern::F5);
    assert_eq!(
        b.cells_with(Stone::Black, Threat::Five),
        vec![p(1, 2), p(6, 2)]
    );
}

#[test]
fn pattern_split_double_four_in_one_line_is_a_flex_four_in_freestyle() {
    // `X_XXX_X` with the new stone in the middle.
    let b = board(
        Rule::Freestyle,
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . X . X . X . X . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        ",
    );
    assert_eq!(b.pattern(p(5, 2), 0, Stone::Black), Pattern::DoubleB4);
    assert_eq!(b.threat(p(5, 2), Stone::Black), Threat::FlexFour);
}

#[test]
fn pattern_four_blocked_at_one_end_is_a_plain_four() {
    // Row 1 `OXXX_`: (5,1) gives `OXXXX_`; row 3 `|XXX_`: (3,3) gives a four closed by the edge.
    let b = board(
        Rule::Freestyle,
        "
        . . . . . . . . . . .
        . O X X X . . . . . .
        . . . . . . . . . . .
        X X X . . . . . . . .
        . . . . . . . . . . .
        ",
    );
    assert_eq!(b.pattern(p(5, 1), 0, Stone::Black), Pattern::B4);
    assert_eq!(b.threat(p(5, 1), Stone::Black), Threat::Four);
    assert_eq!(b.pattern(p(3, 3), 0, Stone::Black), Pattern::B4);
    assert_eq!(b.threat(p(3, 3), Stone::Black), Threat::Four);
}

// ---------------------------------------------------------------------------------------------
// 6. Renju: the recursive "real three" rule
// ---------------------------------------------------------------------------------------------

/// (5,7) makes a vertical open three (5,5)(5,6) and a horizontal broken three (6,7)_(8,7)
/// whose only straight-four square is (7,7). Column x = 7 decides what (7,7) is.
fn recursion_board(column: &str) -> Board {
    let mut rows: Vec<String> = vec![". . . . . . . . . . . . . . .".to_string(); 15];
    rows[5] = ". . . . . X . . . . . . . . .".to_string();
    rows[6] = ". . . . . X . . . . . . . . .".to_string();
    rows[7] = ". . . . . . X . X . . . . . .".to_string();
    let mut text = String::new();
    for (y, row) in rows.iter().enumerate() {
        let mut cells: Vec<char> = row.chars().filter(|c| !c.is_whitespace()).collect();
        let c = column.as_bytes()[y] as char;
        if c != '.' {
            cells[7] = c;
        }
        text.push_str(&cells.iter().collect::<String>());
        text.push('\n');
    }
    board(Rule::Renju, &text)
}

#[test]
fn renju_three_whose_straight_four_square_is_an_overline_is_fake() {
    // Column x = 7 holds (7,4)(7,5)(7,6) _ (7,8)(7,9): black at (7,7) would be an overline.
    let b = recursion_board("....XXX.XX.....");
    assert_eq!(b.pattern(p(5, 7), 0, Stone::Black), Pattern::F3);
    assert_eq!(b.pattern(p(5, 7), 1, Stone::Black), Pattern::F3);
    assert_eq!(b.threat(p(5, 7), Stone::Black), Threat::ThreeThree);
    assert!(forbidden(&b, 7, 7));
    // Only one real three: allowed.
    assert!(!forbidden(&b, 5, 7));
    let mut after = b.clone();
    after.put(p(5, 7), Stone::Black);
    assert_eq!(after.pattern(p(7, 7), 0, Stone::Black), Pattern::F4);
    assert!(forbidden(&after, 7, 7));
}

#[test]
fn renju_three_whose_straight_four_square_is_a_four_three_is_real() {
    // Column x = 7 holds (7,4)(7,5): (7,7) is a straight four plus a three — legal — so both
    // threes through (5,7) are real and (5,7) is a double three.
    let b = recursion_board("....XX.........");
    assert_eq!(b.threat(p(5, 7), Stone::Black), Threat::ThreeThree);
    assert!(forbidden(&b, 5, 7));
    let mut after = b.clone();
    after.put(p(5, 7), Stone::Black);
    assert_eq!(after.threat(p(7, 7), Stone::Black), Threat::FlexFour);
    assert!(!forbidden(&after, 7, 7));
}

/// Depth 2: (7,9) makes a vertical broken three (7,6)(7,8)(7,9), whose only straight-four
/// square (7,7) is itself a real double three (plus a four), and an open anti-diagonal three.
const DEPTH_2: &str = "
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . X . . . . . . . . .
    . . . . . . . . . . X . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . X X . . . . . .
    . . . . . . . . . X . . . . .
    . . . . . . . X X . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . X . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
";

#[test]
fn renju_three_whose_straight_four_square_is_a_double_three_is_fake() {
    let b = board(Rule::Renju, DEPTH_2);
    assert_eq!(b.pattern(p(7, 9), 1, Stone::Black), Pattern::F3);
    assert_eq!(b.pattern(p(7, 9), 3, Stone::Black), Pattern::F3);
    assert_eq!(b.threat(p(7, 9), Stone::Black), Threat::ThreeThree);
    assert!(!forbidden(&b, 7, 9));
    let mut after = b.clone();
    after.put(p(7, 9), Stone::Black);
    assert_eq!(after.pattern(p(7, 7), 1, Stone::Black), Pattern::F4);
    assert!(forbidden(&after, 7, 7));
    // A checker that only tested the square for double four / overline would forbid (7,9).
    let mut naive = Naive::from_board(&b);
    assert!(naive.forbidden_to_depth(7, 9, 1));
    assert!(!naive.forbidden(7, 9));
}

/// Depth 3: (6,10) makes `X_XX` horizontally (square (5,10)) and `XX_X` on the anti-diagonal
/// (square (7,9)). After (6,10), (7,9) is a straight four plus two threes, but its diagonal
/// three (4,6)(5,7)_(7,9) needs (6,8), which is then a straight four plus two real threes:
/// forbidden. So (7,9) has one real three, is legal, and (6,10) is a real double three.
const DEPTH_3: &str = "
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . X . . . . . . . . . .
    . . . . . X . . . . . . . . .
    . . . . . . . X X . . . . . .
    . . . . . . . . . . . . . . .
    . . . . X . . X . . . . . . .
    . . . X . X . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
";

#[test]
fn renju_real_three_recursion_three_levels_deep() {
    let b = board(Rule::Renju, DEPTH_3);
    assert_eq!(b.threat(p(6, 10), Stone::Black), Threat::ThreeThree);
    assert!(forbidden(&b, 6, 10));
    let mut after = b.clone();
    after.put(p(6, 10), Stone::Black);
    assert_eq!(after.threat(p(7, 9), Stone::Black), Threat::FlexFour);
    assert!(after.cell_info(p(7, 9), Stone::Black).needs_forbid_check);
    assert!(!forbidden(&after, 7, 9));
    assert!(!forbidden(&after, 5, 10));
    after.put(p(7, 9), Stone::Black);
    assert!(forbidden(&after, 6, 8));
    // Stopping the recursion one level earlier gives the opposite answer.
    let mut naive = Naive::from_board(&b);
    assert!(!naive.forbidden_to_depth(6, 10, 2));
    assert!(naive.forbidden(6, 10));
}

#[test]
fn renju_straight_four_square_that_also_makes_a_five_does_not_make_a_three() {
    // Column x = 7 holds white (7,2) and a black closed four (7,3)..(7,6): black on (7,7)
    // would be a five. Per §4.3 ("a five at that square also disqualifies it"; RIF's three
    // becomes a straight four "without simultaneously making a five"), the horizontal
    // broken three through (5,7), whose only straight-four square is (7,7), is no three, so
    // (5,7) has one three (vertical) and is allowed.
    let b = recursion_board("..OXXXX........");
    assert!(wins(&b, 7, 7, Stone::Black));
    assert_eq!(b.pattern(p(5, 7), 0, Stone::Black), Pattern::F3);
    assert_eq!(b.pattern(p(5, 7), 1, Stone::Black), Pattern::F3);
    assert!(!Naive::from_board(&b).forbidden(5, 7));
    assert!(!forbidden(&b, 5, 7));
}

// ---------------------------------------------------------------------------------------------
// Randomised cross-checks against a naive referee
// ---------------------------------------------------------------------------------------------

/// A plain 2-D board: 0 empty, 1 black, 2 white; off-board reads as 3 (never blocks).
struct Naive {
    n: i32,
    c: Vec<u8>,
}

const NAIVE_DIRS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (-1, 1)];

impl Naive {
    fn from_board(b: &Board) -> Naive {
        let n = b.width() as i32;
        assert_eq!(b.width(), b.height());
        let mut c = vec![0u8; (n * n) as usize];
        for q in b.squares() {
            c[q.y() * n as usize + q.x()] = match b.cell(q) {
                Cell::Stone(Stone::Black) => 1,
                Cell::Stone(Stone::White) => 2,
                _ => 0,
            };
        }
        Naive { n, c }
    }

    fn at(&self, x: i32, y: i32) -> u8 {
        if x < 0 || y < 0 || x >= self.n || y >= self.n {
            3
        } else {
            self.c[(y * self.n + x) as usize]
        }
    }

    fn set(&mut self, x: i32, y: i32, v: u8) {
        self.c[(y * self.n + x) as usize] = v;
    }

    /// Length of the run of `s` through (x,y) (which must hold `s`) and the cells past each end.
    fn run(&self, x: i32, y: i32, d: (i32, i32), s: u8) -> (i32, u8, u8) {
        let mut len = 1;
        let mut k = 1;
        while self.at(x + k * d.0, y + k * d.1) == s {
            len += 1;
            k += 1;
        }
        let after = self.at(x + k * d.0, y + k * d.1);
        k = 1;
        while self.at(x - k * d.0, y - k * d.1) == s {
            len += 1;
            k += 1;
        }
        let before = self.at(x - k * d.0, y - k * d.1);
        (len, before, after)
    }

    /// Would `s` on the empty (x,y) win under `rule`?
    fn wins(&mut self, rule: Rule, x: i32, y: i32, s: u8) -> bool {
        let opp = 3 - s;
        self.set(x, y, s);
        let mut win = false;
        for d in NAIVE_DIRS {
            let (len, a, b) = self.run(x, y, d, s);
            let both = a == opp && b == opp;
            win |= match rule {
                Rule::Freestyle => len >= 5,
                Rule::Standard => len == 5,
                Rule::Renju => len == 5 || (s == 2 && len > 5),
                Rule::CaroOverline => len > 5 || (len == 5 && !both),
                Rule::Caro => len == 5 && !both,
            };
        }
        self.set(x, y, 0);
        win
    }

    fn black_len(&self, x: i32, y: i32, d: (i32, i32)) -> i32 {
        self.run(x, y, d, 1).0
    }

    /// With black on (x,y): offsets k of empty squares on line d whose black stone makes an
    /// exact five through (x,y).
    fn five_squares(&mut self, x: i32, y: i32, d: (i32, i32)) -> Vec<i32> {
        let mut out = Vec::new();
        for k in -5..=5 {
            let (sx, sy) = (x + k * d.0, y + k * d.1);
            if k == 0 || self.at(sx, sy) != 0 {
                continue;
            }
            self.set(sx, sy, 1);
            if self.black_len(x, y, d) == 5 {
                out.push(k);
            }
            self.set(sx, sy, 0);
        }
        out
    }

    fn fours(&mut self, x: i32, y: i32, d: (i32, i32)) -> usize {
        let f = self.five_squares(x, y, d);
        if f.len() == 2 && (f[0] - f[1]).abs() == 5 {
            1
        } else {
            f.len()
        }
    }

    /// With black on (x,y): does line d hold a three that becomes a straight four through a
    /// square that is neither a five (in any line) nor forbidden? `depth` bounds the recursion
    /// (at 0 the straight-four square is only checked for double four / overline).
    fn real_three(&mut self, x: i32, y: i32, d: (i32, i32), depth: u32) -> bool {
        if self.fours(x, y, d) > 0 {
            return false;
        }
        for k in -4..=4 {
            let (sx, sy) = (x + k * d.0, y + k * d.1);
            if k == 0 || self.at(sx, sy) != 0 {
                continue;
            }
            self.set(sx, sy, 1);
            let f = self.five_squares(x, y, d);
            let straight = f.len() == 2 && (f[0] - f[1]).abs() == 5;
            let five = NAIVE_DIRS.iter().any(|&e| self.black_len(sx, sy, e) == 5);
            self.set(sx, sy, 0);
            if straight && !five && !self.forbidden_to_depth(sx, sy, depth) {
                return true;
            }
        }
        false
    }

    /// Renju forbidden point for black, recursion unbounded.
    fn forbidden(&mut self, x: i32, y: i32) -> bool {
        self.forbidden_to_depth(x, y, u32::MAX)
    }

    /// Renju forbidden point for black; double threes are looked for `depth` levels deep.
    fn forbidden_to_depth(&mut self, x: i32, y: i32, depth: u32) -> bool {
        if self.at(x, y) != 0 {
            return false;
        }
        self.set(x, y, 1);
        let result = if NAIVE_DIRS.iter().any(|&d| self.black_len(x, y, d) == 5) {
            false
        } else if NAIVE_DIRS.iter().any(|&d| self.black_len(x, y, d) > 5) {
            true
        } else {
            let fours: usize = NAIVE_DIRS.iter().map(|&d| self.fours(x, y, d)).sum();
            fours >= 2
                || (depth > 0
                    && NAIVE_DIRS
                        .iter()
                        .filter(|&&d| self.real_three(x, y, d, depth - 1))
                        .count()
                        >= 2)
        };
        self.set(x, y, 0);
        result
    }
}

/// A random position: `stones` stones in the central 9x9 of a 15x15 board, mostly black.
fn random_board(rng: &mut StdRng, rule: Rule, stones: usize, black_share: f64) -> Board {
    let mut b = Board::new(15, 15, table(rule)).expect("15x15");
    let mut placed = 0;
    while placed < stones {
        let q = p(rng.gen_range(3..12), rng.gen_range(3..12));
        if b.is_empty(q) {
            let s = if rng.gen_bool(black_share) {
                Stone::Black
            } else {
                Stone::White
            };
            b.put(q, s);
            placed += 1;
        }
    }
    b
}

#[test]
fn random_positions_five_detection_matches_naive_referee_under_every_rule() {
    let mut rng = StdRng::seed_from_u64(0x5EED_0001);
    for rule in Rule::ALL {
        for _ in 0..150 {
            let stones = rng.gen_range(10..45);
            let b = random_board(&mut rng, rule, stones, 0.5);
            let mut naive = Naive::from_board(&b);
            for q in b.squares().filter(|&q| b.is_empty(q)) {
                for (s, code) in [(Stone::Black, 1), (Stone::White, 2)] {
                    let expected = naive.wins(rule, q.x() as i32, q.y() as i32, code);
                    assert_eq!(
                        b.is_winning_move(q, s),
                        expected,
                        "{} {:?} at {}\n{}",
                        rule.name(),
                        s,
                        q,
                        b.to_ascii()
                    );
                }
            }
        }
    }
}

#[test]
fn random_positions_renju_forbidden_points_match_naive_referee() {
    let mut rng = StdRng::seed_from_u64(0x5EED_0002);
    let mut checked = 0;
    let mut forbidden_seen = 0;
    while checked < 1500 {
        let stones = rng.gen_range(8..40);
        let mut b = random_board(&mut rng, Rule::Renju, stones, 0.7);
        checked += 1;
        let mut naive = Naive::from_board(&b);
        let squares: Vec<Pos> = b.squares().filter(|&q| b.is_empty(q)).collect();
        for q in squares {
            let expected = naive.forbidden(q.x() as i32, q.y() as i32);
            forbidden_seen += expected as usize;
            assert_eq!(
                is_forbidden(&mut b, q),
                expected,
                "forbidden at {}\n{}",
                q,
                b.to_ascii()
            );
        }
    }
    assert!(
        forbidden_seen > 100,
        "too few forbidden points: {forbidden_seen}"
    );
}

#[test]
fn combo_index_numbers_each_multiset_of_ranks_once() {
    // One pattern per rank.
    let reps = [
        Pattern::B1,
        Pattern::B2,
        Pattern::F2,
        Pattern::B3,
        Pattern::F3,
        Pattern::B4,
    ];
    let mut seen = std::collections::HashMap::new();
    for i in 0..6usize.pow(4) {
        let ranks = [i % 6, (i / 6) % 6, (i / 36) % 6, i / 216];
        let pats = ranks.map(|r| reps[r]);
        let mut sorted = ranks;
        sorted.sort_unstable();
        let index = combo_index(pats);
        assert!(index < COMBO_COUNT, "{ranks:?} -> {index}");
        // Order of the directions does not matter; different multisets never share an index.
        let previous = seen.insert(index, sorted);
        assert!(
            previous.map_or(true, |p| p == sorted),
            "{ranks:?} -> {index}"
        );
    }
    assert_eq!(seen.len(), COMBO_COUNT);
    // Every pattern below B2 counts as nothing.
    assert_eq!(
        combo_index([Pattern::Dead, Pattern::Overline, Pattern::F1, Pattern::B1]),
        0
    );
}

#[test]
fn the_pair_class_combine_table_answers_every_ordered_four_of_patterns() {
    // The combine table keeps one entry per two unordered pairs; every ordering of every four
    // patterns must still read the combination of exactly those four, for both colours of
    // every rule (renju black's forbidden classes included).
    let n = Pattern::COUNT;
    for rule in Rule::ALL {
        let t = table(rule);
        for stone in [Stone::Black, Stone::White] {
            for i in 0..n.pow(4) {
                let codes = [i % n, (i / n) % n, (i / (n * n)) % n, i / (n * n * n)];
                let pats = codes.map(|c| Pattern::ALL[c]);
                assert_eq!(
                    t.combine(stone, codes.map(|c| c as u8)),
                    combine_patterns(rule, stone, pats),
                    "{rule:?} {stone:?} {pats:?}"
                );
            }
        }
    }
}
