//! Static evaluation: integer, from the side to move's point of view.
//!
//! The board keeps, for each colour, the sum of the potential values of all empty cells
//! ([`Board::value_sum`]; the per-pattern weights live in the rules module's tables). The side to
//! move gets its own potential in full and the opponent's at a discount, because it moves first.

use crate::{board::Board, search::Score};

/// Weight of the side to move's potential, in sixteenths.
pub const OWN_WEIGHT: Score = 18;
/// Weight of the opponent's potential, in sixteenths.
pub const OPPONENT_WEIGHT: Score = 14;

/// The evaluation of `board` for the side to move.
pub fn evaluate(board: &Board) -> Score {
    let me = board.side_to_move();
    let own = board.value_sum(me);
    let theirs = board.value_sum(me.opponent());
    (own * OWN_WEIGHT - theirs * OPPONENT_WEIGHT) / 16
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::rules::{PatternTable, Rule};

    #[test]
    fn more_potential_scores_higher_and_is_antisymmetric_in_sign() {
        let table = Arc::new(PatternTable::new(Rule::Freestyle));
        let board = Board::from_ascii(
            "
            . . . . . . . . .
            . . . . . . . . .
            . . X X . . . . .
            . . . . . . . . .
            . . . . . . O . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .
            ",
            table,
        )
        .expect("valid");
        // White to move, black has a two against a single white stone.
        assert!(evaluate(&board) < 0, "{}", evaluate(&board));
    }
}
