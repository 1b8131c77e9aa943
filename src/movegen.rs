//! Candidate moves and threat-first ordering.
//!
//! Candidates are empty squares with a stone within two cells (a 5×5 square), or the centre on an
//! empty board. When the opponent threatens to make a five, only the blocking square is legal in
//! practice; when the opponent has an open three (a square where it would make a straight four),
//! only squares that stop it or that make our own four are worth searching. These restrictions,
//! and renju's forbidden squares for black, are applied here. Moves are sorted by a total order:
//! score descending, then square index ascending, so the order never depends on the sort
//! algorithm.

use crate::{
    board::{Board, CellSet, Pos, Stone},
    rules::{self, Threat},
};

/// Why the move list has the shape it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveKind {
    /// The side to move can make a five.
    Win,
    /// The opponent can make a five at exactly one square; the list holds that square (if the side
    /// to move may play it).
    ForcedBlock,
    /// The opponent has two or more five squares: the side to move loses (unless it wins first).
    Lost,
    /// The opponent has an open three (or another way to a straight four): defences and our fours.
    Defend,
    /// Everything near the stones.
    Normal,
}

/// A generated move list with its kind.
#[derive(Clone, Debug)]
pub struct MoveList {
    /// What kind of node this is.
    pub kind: MoveKind,
    /// Moves in search order.
    pub moves: Vec<Pos>,
}

/// The candidates on a board without stones: the centre, or when a wall (a BOARD field 3
/// square) stands there, the empty squares nearest to it.
fn first_move_squares(board: &Board) -> CellSet {
    let (cx, cy) = (board.width() / 2, board.height() / 2);
    let centre = Pos::from_xy(cx, cy);
    if board.is_empty(centre) {
        return CellSet::single(centre);
    }
    let distance = |p: Pos| p.x().abs_diff(cx).max(p.y().abs_diff(cy));
    let nearest = board
        .squares()
        .filter(|&p| board.is_empty(p))
        .map(distance)
        .min();
    board
        .squares()
        .filter(|&p| board.is_empty(p) && Some(distance(p)) == nearest)
        .fold(CellSet::default(), |set, p| set.union(CellSet::single(p)))
}

/// Ordering score of a move for the side to move: its own potential there plus the opponent's
/// (taking a square the opponent wants is a defence).
pub fn order_score(board: &Board, pos: Pos) -> i32 {
    let me = board.side_to_move();
    let own = board.cell_info(pos, me);
    let theirs = board.cell_info(pos, me.opponent());
    let bonus = |t: u8, attack: bool| -> i32 {
        match Threat::from_u8(t) {
            Threat::Five => 1_000_000,
            Threat::FlexFour => {
                if attack {
                    100_000
                } else {
                    50_000
                }
            }
            Threat::FourThree => {
                if attack {
                    40_000
                } else {
                    20_000
                }
            }
            _ => 0,
        }
    };
    pattern_value(board, pos) + bonus(own.threat, true) + bonus(theirs.threat, false)
}

/// The pattern value of a move for the side to move (its own potential counted twice, the
/// opponent's once), without the threat bonuses of [`order_score`].
pub fn pattern_value(board: &Board, pos: Pos) -> i32 {
    let me = board.side_to_move();
    2 * i32::from(board.cell_info(pos, me).value)
        + i32::from(board.cell_info(pos, me.opponent()).value)
}

/// True if the side to move may play `pos` (renju: black's forbidden squares excluded).
pub fn is_legal(board: &mut Board, pos: Pos) -> bool {
    board.is_empty(pos) && board.on_board(pos) && !rules::is_forbidden_move(board, pos)
}

/// True if the side to move has a legal square anywhere on the board (renju: black may have
/// only forbidden ones left).
pub fn has_legal_move(board: &mut Board) -> bool {
    let empty: Vec<Pos> = board.squares().filter(|&p| board.is_empty(p)).collect();
    empty.into_iter().any(|p| is_legal(board, p))
}

/// True if `stone` would make a four or a five at `pos` in some direction (the move may still
/// be forbidden).
pub fn makes_four(board: &Board, pos: Pos, stone: Stone) -> bool {
    (0..4).any(|d| board.pattern(pos, d, stone).is_four_or_five())
}

/// True if `stone` has a square that makes a straight four or a double four and that it may
/// play (renju: black's forbidden squares excluded).
pub fn has_legal_flex_four(board: &mut Board, stone: Stone) -> bool {
    if board.threat_count(stone, Threat::FlexFour) == 0 {
        return false;
    }
    if !board.rule().has_forbidden(stone) {
        return true;
    }
    board
        .cells_with(stone, Threat::FlexFour)
        .into_iter()
        .any(|p| !rules::is_forbidden(board, p))
}

/// Generates the moves of the side to move, ordered, with `first` (e.g. the hash move) in front
/// when it is among them.
pub fn generate(board: &mut Board, first: Option<Pos>) -> MoveList {
    generate_ordered(board, first, &|_, _| 0)
}

/// [`generate`] with `bonus(board, move)` added to each move's ordering score (the search's
/// killer and history heuristics).
pub fn generate_ordered(
    board: &mut Board,
    first: Option<Pos>,
    bonus: &dyn Fn(&Board, Pos) -> i32,
) -> MoveList {
    let me = board.side_to_move();
    let opp = me.opponent();
    if board.threat_count(me, Threat::Five) > 0 {
        let moves = board.cells_with(me, Threat::Five);
        return MoveList {
            kind: MoveKind::Win,
            moves,
        };
    }
    let opp_fives = board.threat_count(opp, Threat::Five);
    if opp_fives >= 2 {
        return MoveList {
            kind: MoveKind::Lost,
            moves: legal_subset(board, board.cells_with(opp, Threat::Five)),
        };
    }
    if opp_fives == 1 {
        let moves = legal_subset(board, board.cells_with(opp, Threat::Five));
        return MoveList {
            kind: MoveKind::ForcedBlock,
            moves,
        };
    }
    let (kind, squares) = if board.threat_count(opp, Threat::FlexFour) > 0 {
        // The squares where either side makes a four or a five (`makes_four`).
        let squares = board.four_cell_set(opp).union(*board.four_cell_set(me));
        (MoveKind::Defend, squares)
    } else {
        let squares = if board.stone_count() == 0 {
            first_move_squares(board)
        } else {
            *board.candidates()
        };
        (MoveKind::Normal, squares)
    };
    let check_forbidden = board.rule().has_forbidden(me);
    // One u64 per move sorts as (score descending, square ascending): the score, flipped so that
    // a higher score is a smaller number, above the square index.
    let mut keyed: Vec<u64> = Vec::with_capacity(squares.len());
    for p in squares.iter() {
        if check_forbidden {
            let forbidden = match board.threat(p, me) {
                Threat::Forbidden => true,
                _ => board.cell_info(p, me).needs_forbid_check && rules::is_forbidden(board, p),
            };
            if forbidden {
                continue;
            }
        }
        let score = if Some(p) == first {
            i32::MAX
        } else {
            order_score(board, p) + bonus(board, p)
        };
        keyed.push(sort_key(score, p));
    }
    keyed.sort_unstable();
    MoveList {
        kind,
        moves: keyed.iter().map(|&k| key_pos(k)).collect(),
    }
}

/// The sort key of a move with ordering score `score`: ascending keys are descending scores,
/// ties by ascending square.
#[inline]
fn sort_key(score: i32, pos: Pos) -> u64 {
    let descending = !((score as u32) ^ 0x8000_0000);
    (u64::from(descending) << 32) | pos.index() as u64
}

/// The square of a [`sort_key`].
#[inline]
fn key_pos(key: u64) -> Pos {
    Pos::from_index((key & 0xFFFF_FFFF) as usize)
}

fn legal_subset(board: &mut Board, squares: Vec<Pos>) -> Vec<Pos> {
    squares
        .into_iter()
        .filter(|&p| is_legal(board, p))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::rules::{PatternTable, Rule};

    fn board(rule: Rule, text: &str) -> Board {
        Board::from_ascii(text, Arc::new(PatternTable::new(rule))).expect("valid board")
    }

    #[test]
    fn a_four_must_be_blocked() {
        let mut b = board(
            Rule::Freestyle,
            "
            . . . . . . . . .
            . O O O O . . . .
            . . . . . . . . .
            . . X . X . . . .
            . . . X . . . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . X
            ",
        );
        // Black to move (4 each); white's four on row 1 is open at both 0,1 and 5,1.
        let list = generate(&mut b, None);
        assert_eq!(list.kind, MoveKind::Lost);
        let mut b = board(
            Rule::Freestyle,
            "
            . . . . . . . . .
            X O O O O . . . .
            . . . . . . . . .
            . . X . X . . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . X
            ",
        );
        let list = generate(&mut b, None);
        assert_eq!(list.kind, MoveKind::ForcedBlock);
        assert_eq!(list.moves, vec![Pos::from_xy(5, 1)]);
    }

    #[test]
    fn an_open_three_restricts_to_defences_and_fours() {
        let mut b = board(
            Rule::Freestyle,
            "
            . . . . . . . . . . .
            . . . . . . . . . . .
            . . . . . . . . . . .
            . . . O O O . . . . .
            . . . . . . . . . . .
            . . . . . . X . . . .
            . . . . . X . . . . .
            . . . . . . . . . . .
            . . . . . . . . . . .
            . . . . . . . . . . .
            . . . . . . . . . . X
            ",
        );
        // Black to move against white's open three on row 3.
        let list = generate(&mut b, None);
        assert_eq!(list.kind, MoveKind::Defend);
        for p in [(2, 3), (6, 3), (1, 3), (7, 3)] {
            assert!(
                list.moves.contains(&Pos::from_xy(p.0, p.1)),
                "{p:?} missing"
            );
        }
        assert!(!list.moves.contains(&Pos::from_xy(4, 7)));
    }

    #[test]
    fn sort_keys_order_by_score_descending_then_square() {
        let (a, b) = (Pos::from_xy(3, 4), Pos::from_xy(5, 4));
        let mut keys = [
            sort_key(-7, a),
            sort_key(12, b),
            sort_key(i32::MAX, b),
            sort_key(12, a),
            sort_key(i32::MIN, a),
            sort_key(0, b),
        ];
        keys.sort_unstable();
        let decoded: Vec<Pos> = keys.iter().map(|&k| key_pos(k)).collect();
        assert_eq!(decoded, vec![b, a, b, b, a, a]);
    }

    #[test]
    fn renju_black_never_gets_a_forbidden_move() {
        // Black to move; 2,2 would be a double three (row 2 and column 2).
        let mut b = board(
            Rule::Renju,
            "
            . . . . . . . . .
            . . . . . . . . .
            . . . X X . . . .
            . . X . . . . . .
            . . X . . . . . .
            . . . . . . . . O
            . . . . . . . . .
            . . . . . . . O O
            . . . . . . . O .
            ",
        );
        assert_eq!(b.side_to_move(), Stone::Black);
        let list = generate(&mut b, None);
        assert!(!list.moves.contains(&Pos::from_xy(2, 2)));
        assert!(!list.moves.is_empty());
        let mut fs = board(Rule::Freestyle, &b.to_ascii());
        assert!(generate(&mut fs, None).moves.contains(&Pos::from_xy(2, 2)));
    }
}
