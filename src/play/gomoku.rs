//! Gomoku for the play page: the position, judged by the engine's own rules code.
//!
//! The server keeps one [`Gomoku`] per game and asks it about every move, so the page never
//! decides anything itself. A person's renju-forbidden move is refused (the page shows the
//! forbidden points and the server will not place a stone there); a computer's forbidden move is
//! placed and loses, as in the arena.

use std::sync::Arc;

use super::position::{Played, Refusal};
use crate::{
    board::{Board, Cell, Pos, Stone},
    rules::{self, PatternTable, Rule},
};

/// A Gomoku position under one rule.
#[derive(Clone, Debug)]
pub struct Gomoku {
    board: Board,
}

impl Gomoku {
    /// An empty `size`×`size` board; `None` for sizes the board does not support.
    pub fn new(size: usize, table: Arc<PatternTable>) -> Option<Gomoku> {
        Board::new(size, size, table).map(|board| Gomoku { board })
    }

    /// The board (for the search and the records).
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The rule.
    pub fn rule(&self) -> Rule {
        self.board.rule()
    }

    /// The board's side length.
    pub fn size(&self) -> usize {
        self.board.width()
    }

    /// The colour to move.
    pub fn side_to_move(&self) -> Stone {
        self.board.side_to_move()
    }

    /// The stone at `(x, y)`, if any.
    pub fn stone(&self, x: usize, y: usize) -> Option<Stone> {
        match self
            .board
            .pos(x as i64, y as i64)
            .map(|p| self.board.cell(p))
        {
            Some(Cell::Stone(s)) => Some(s),
            _ => None,
        }
    }

    /// Plays the side to move at `(x, y)`. `refuse_forbidden`: a renju-forbidden square is
    /// refused (a person's move) instead of played and lost (a computer's).
    pub fn play(&mut self, x: i64, y: i64, refuse_forbidden: bool) -> Result<Played, Refusal> {
        let pos = self.board.pos(x, y).ok_or(Refusal::OffBoard)?;
        if !self.board.is_empty(pos) {
            return Err(Refusal::Occupied);
        }
        let side = self.board.side_to_move();
        let five = self.board.is_winning_move(pos, side);
        let foul = !five && rules::is_forbidden_move(&mut self.board, pos);
        if foul && refuse_forbidden {
            return Err(Refusal::Forbidden);
        }
        self.board.make(pos);
        Ok(if five {
            Played::Won(self.line_through(pos, side))
        } else if foul {
            Played::Foul
        } else if self.board.is_full() {
            Played::Draw
        } else {
            Played::Continue
        })
    }

    /// Takes back the last move.
    pub fn undo(&mut self) {
        self.board.undo();
    }

    /// The squares black may not play now (renju, black to move); empty otherwise.
    pub fn forbidden_points(&mut self) -> Vec<(usize, usize)> {
        if !self.rule().has_forbidden(self.board.side_to_move()) {
            return Vec::new();
        }
        let empties: Vec<Pos> = self
            .board
            .squares()
            .filter(|&p| self.board.is_empty(p))
            .collect();
        empties
            .into_iter()
            .filter(|&p| rules::is_forbidden_move(&mut self.board, p))
            .map(|p| (p.x(), p.y()))
            .collect()
    }

    /// The longest run of `stone` through `pos` (the winning five, or the overline that won).
    fn line_through(&self, pos: Pos, stone: Stone) -> Vec<(usize, usize)> {
        let mut best: Vec<(usize, usize)> = Vec::new();
        for (dx, dy) in [(1i64, 0i64), (0, 1), (1, 1), (1, -1)] {
            let mut run = vec![(pos.x(), pos.y())];
            for sign in [-1i64, 1] {
                let (mut x, mut y) = (pos.x() as i64, pos.y() as i64);
                loop {
                    x += sign * dx;
                    y += sign * dy;
                    match self.board.pos(x, y).map(|p| self.board.cell(p)) {
                        Some(Cell::Stone(s)) if s == stone => {
                            if sign < 0 {
                                run.insert(0, (x as usize, y as usize));
                            } else {
                                run.push((x as usize, y as usize));
                            }
                        }
                        _ => break,
                    }
                }
            }
            if run.len() > best.len() {
                best = run;
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(rule: Rule) -> Gomoku {
        Gomoku::new(15, Arc::new(PatternTable::new(rule))).unwrap()
    }

    /// Plays `moves` alternately from black, expecting the game to go on.
    fn play_all(g: &mut Gomoku, moves: &[(i64, i64)]) {
        for &(x, y) in moves {
            assert_eq!(g.play(x, y, true), Ok(Played::Continue), "{x},{y}");
        }
    }

    #[test]
    fn five_reports_its_line_and_bad_squares_are_refused() {
        let mut g = game(Rule::Freestyle);
        play_all(
            &mut g,
            &[
                (3, 7),
                (3, 8),
                (4, 7),
                (4, 8),
                (5, 7),
                (5, 8),
                (6, 7),
                (6, 8),
            ],
        );
        assert_eq!(g.play(3, 7, true), Err(Refusal::Occupied));
        assert_eq!(g.play(15, 0, true), Err(Refusal::OffBoard));
        assert_eq!(g.play(-1, 0, true), Err(Refusal::OffBoard));
        assert_eq!(
            g.play(7, 7, true),
            Ok(Played::Won(vec![(3, 7), (4, 7), (5, 7), (6, 7), (7, 7)]))
        );
        g.undo();
        assert_eq!(g.side_to_move(), Stone::Black);
        assert_eq!(g.stone(7, 7), None);
        assert_eq!(g.stone(3, 7), Some(Stone::Black));
    }

    #[test]
    fn renju_double_three_is_refused_for_a_person_and_loses_for_a_computer() {
        // Black: 7,7 8,7 and 7,8 9,9 … a double three at 7,9? Use the textbook shape:
        // black stones at (6,7) (7,7) and (8,6) (8,5); 8,7 makes two open threes.
        let mut g = game(Rule::Renju);
        play_all(
            &mut g,
            &[
                (6, 7),
                (0, 0),
                (7, 7),
                (0, 14),
                (8, 6),
                (14, 0),
                (8, 5),
                (14, 14),
            ],
        );
        assert!(
            g.forbidden_points().contains(&(8, 7)),
            "{:?}",
            g.forbidden_points()
        );
        assert_eq!(g.play(8, 7, true), Err(Refusal::Forbidden));
        assert_eq!(g.stone(8, 7), None);
        assert_eq!(g.play(8, 7, false), Ok(Played::Foul));
        assert_eq!(g.stone(8, 7), Some(Stone::Black));
        // White has no forbidden points.
        assert!(g.forbidden_points().is_empty());
    }

    #[test]
    fn standard_overline_is_no_win() {
        let mut g = game(Rule::Standard);
        // Black: 2..=4 and 6..=7 on row 7; 5,7 makes six.
        play_all(
            &mut g,
            &[
                (2, 7),
                (2, 9),
                (3, 7),
                (3, 9),
                (4, 7),
                (4, 9),
                (6, 7),
                (9, 9),
                (7, 7),
                (10, 9),
            ],
        );
        assert_eq!(g.play(5, 7, true), Ok(Played::Continue));
        let mut f = game(Rule::Freestyle);
        play_all(
            &mut f,
            &[
                (2, 7),
                (2, 9),
                (3, 7),
                (3, 9),
                (4, 7),
                (4, 9),
                (6, 7),
                (9, 9),
                (7, 7),
                (10, 9),
            ],
        );
        match f.play(5, 7, true) {
            Ok(Played::Won(line)) => assert_eq!(line.len(), 6),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn full_board_is_a_draw() {
        // 5×5 filled column by column in a pattern without five: colours by (x / 2 + y) % 2.
        let mut g = Gomoku::new(5, Arc::new(PatternTable::new(Rule::Freestyle))).unwrap();
        let mut black = Vec::new();
        let mut white = Vec::new();
        for y in 0..5 {
            for x in 0..5 {
                if (x / 2 + y) % 2 == 0 {
                    black.push((x as i64, y as i64));
                } else {
                    white.push((x as i64, y as i64));
                }
            }
        }
        assert_eq!(black.len(), 13);
        assert_eq!(white.len(), 12);
        let mut last = Ok(Played::Continue);
        for i in 0..25 {
            let (x, y) = if i % 2 == 0 {
                black[i / 2]
            } else {
                white[i / 2]
            };
            last = g.play(x, y, true);
            if i < 24 {
                assert_eq!(last, Ok(Played::Continue), "move {i}");
            }
        }
        assert_eq!(last, Ok(Played::Draw));
    }
}
