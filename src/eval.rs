//! Static evaluation: integer, from the side to move's point of view.
//!
//! The board keeps, for each colour, the sums of the evaluation weights of all empty cells
//! ([`Board::eval_sums`]): each cell is weighed by its line patterns and threat class, once as
//! the side to move would see it and once as the opponent's. The weights live in the rules
//! module ([`crate::rules::EvalWeights`], looked up by [`crate::rules::Rule::eval_weights`]) and
//! were fitted to a stronger engine's search scores (tests/tune.rs).

use crate::{board::Board, score::Score};

/// The evaluation of `board` for the side to move.
pub fn evaluate(board: &Board) -> Score {
    let me = board.side_to_move();
    board.eval_sums(me)[0] - board.eval_sums(me.opponent())[1]
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
