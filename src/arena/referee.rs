//! The referee: checks each answer against the game's rule with the engine's own rule code
//! ([`crate::rules`], [`crate::board`]), and decides wins, renju fouls and draws.
//!
//! Order of the checks for a move by the side to move: the square must be on the board and
//! empty; then a five under the rule wins (in renju a five takes precedence over a forbidden
//! shape, which [`rules::is_forbidden_move`] already knows); otherwise a forbidden move by black in
//! renju loses; otherwise a full board, or `draw_after` stones, is a draw. Winning and forbidden
//! moves are placed on the board too, so the game record shows them.

use std::sync::Arc;

use crate::{
    board::{Board, Pos, Stone},
    rules::{self, PatternTable},
};

/// What a legal move did to the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The game goes on.
    Continue,
    /// The mover made a five and wins.
    Five,
    /// The mover (black, renju) played a forbidden move and loses.
    Forbidden,
    /// No empty square is left: draw.
    FullBoard,
    /// The stone limit was reached: draw.
    DrawAfter,
}

/// Why a move could not be played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// The coordinates are outside the board.
    OffBoard,
    /// The square already holds a stone.
    Occupied,
}

/// Parses an engine's move line: `x,y` with optional spaces around the numbers. Anything else
/// (extra fields, letters, missing comma) is `None`.
pub fn parse_move(line: &str) -> Option<(i64, i64)> {
    let mut parts = line.trim().split(',');
    let x = parts.next()?.trim().parse::<i64>().ok()?;
    let y = parts.next()?.trim().parse::<i64>().ok()?;
    if parts.next().is_some() {
        return None;
    }
    Some((x, y))
}

/// The game position as the referee sees it.
#[derive(Clone, Debug)]
pub struct Referee {
    board: Board,
    draw_after: Option<usize>,
}

impl Referee {
    /// A referee for an empty `size`×`size` board; `None` for unsupported sizes.
    /// `draw_after`: the game is drawn once that many stones are on the board.
    pub fn new(size: usize, table: Arc<PatternTable>, draw_after: Option<usize>) -> Option<Self> {
        Some(Referee {
            board: Board::new(size, size, table)?,
            draw_after,
        })
    }

    /// The current position.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The colour to move.
    pub fn side_to_move(&self) -> Stone {
        self.board.side_to_move()
    }

    /// Plays the side to move at `(x, y)` after checking it.
    pub fn play(&mut self, x: i64, y: i64) -> Result<Verdict, MoveError> {
        let pos: Pos = self.board.pos(x, y).ok_or(MoveError::OffBoard)?;
        if !self.board.is_empty(pos) {
            return Err(MoveError::Occupied);
        }
        let side = self.board.side_to_move();
        let verdict = if self.board.is_winning_move(pos, side) {
            Verdict::Five
        } else if rules::is_forbidden_move(&mut self.board, pos) {
            Verdict::Forbidden
        } else {
            Verdict::Continue
        };
        self.board.make(pos);
        if verdict != Verdict::Continue {
            return Ok(verdict);
        }
        if self.board.is_full() {
            return Ok(Verdict::FullBoard);
        }
        if let Some(limit) = self.draw_after {
            if self.board.stone_count() >= limit {
                return Ok(Verdict::DrawAfter);
            }
        }
        Ok(Verdict::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;

    fn referee(rule: Rule, size: usize) -> Referee {
        Referee::new(size, Arc::new(PatternTable::new(rule)), None).unwrap()
    }

    /// Plays `moves` (alternating from black) and returns the verdict of the last one.
    fn play_all(r: &mut Referee, moves: &[(i64, i64)]) -> Result<Verdict, MoveError> {
        let mut last = Ok(Verdict::Continue);
        for (i, &(x, y)) in moves.iter().enumerate() {
            last = r.play(x, y);
            if i + 1 < moves.len() {
                assert_eq!(last, Ok(Verdict::Continue), "move {i} {x},{y}");
            }
        }
        last
    }

    /// Black stones on `black`, white on `white`, interleaved in move order (black first).
    fn interleave(black: &[(i64, i64)], white: &[(i64, i64)]) -> Vec<(i64, i64)> {
        let mut out = Vec::new();
        for i in 0..black.len().max(white.len()) {
            if let Some(&b) = black.get(i) {
                out.push(b);
            }
            if let Some(&w) = white.get(i) {
                out.push(w);
            }
        }
        out
    }

    #[test]
    fn parse_moves() {
        assert_eq!(parse_move("7,8"), Some((7, 8)));
        assert_eq!(parse_move(" 7 , 8 \r"), Some((7, 8)));
        assert_eq!(parse_move("-1,3"), Some((-1, 3)));
        assert_eq!(parse_move("7,8,1"), None);
        assert_eq!(parse_move("7 8"), None);
        assert_eq!(parse_move("hello"), None);
        assert_eq!(parse_move(""), None);
        assert_eq!(parse_move("MESSAGE 7,8"), None);
    }

    #[test]
    fn off_board_and_occupied() {
        let mut r = referee(Rule::Freestyle, 15);
        assert_eq!(r.play(15, 0), Err(MoveError::OffBoard));
        assert_eq!(r.play(-1, 3), Err(MoveError::OffBoard));
        assert_eq!(r.play(7, 7), Ok(Verdict::Continue));
        assert_eq!(r.play(7, 7), Err(MoveError::Occupied));
        assert_eq!(r.side_to_move(), Stone::White);
    }

    #[test]
    fn freestyle_five_and_overline() {
        // Black 3..6 on row 7 and 8,7: 7,7 makes six, a win in freestyle.
        let black = [(3, 7), (4, 7), (5, 7), (6, 7), (8, 7)];
        let white = [(3, 0), (5, 0), (7, 0), (9, 0), (11, 0)];
        let mut moves = interleave(&black[..4], &white[..4]);
        moves.push((8, 7));
        moves.push((11, 0));
        moves.push((7, 7));
        let mut r = referee(Rule::Freestyle, 15);
        assert_eq!(play_all(&mut r, &moves), Ok(Verdict::Five));
        // A plain diagonal five.
        let mut r = referee(Rule::Freestyle, 15);
        let black = [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)];
        let white = [(0, 5), (0, 7), (0, 9), (0, 11)];
        assert_eq!(
            play_all(&mut r, &interleave(&black, &white)),
            Ok(Verdict::Five)
        );
    }

    #[test]
    fn standard_overline_is_no_win() {
        let black = [(3, 7), (4, 7), (5, 7), (6, 7), (8, 7)];
        let white = [(3, 0), (5, 0), (7, 0), (9, 0), (11, 0)];
        let mut moves = interleave(&black, &white);
        moves.push((7, 7));
        let mut r = referee(Rule::Standard, 15);
        assert_eq!(play_all(&mut r, &moves), Ok(Verdict::Continue));
        // Exact five wins in standard.
        let mut r = referee(Rule::Standard, 15);
        let black = [(3, 7), (4, 7), (5, 7), (6, 7), (7, 7)];
        let white = [(3, 0), (5, 0), (7, 0), (9, 0)];
        assert_eq!(
            play_all(&mut r, &interleave(&black, &white)),
            Ok(Verdict::Five)
        );
    }

    #[test]
    fn renju_black_overline_is_forbidden_white_overline_wins() {
        // protocol.md §6 item 55: black 3..6,7 and 8,7; 7,7 is a forbidden overline for black.
        let black = [(3, 7), (4, 7), (5, 7), (6, 7), (8, 7)];
        let white = [(2, 7), (0, 0), (0, 2), (0, 4), (0, 6)];
        let mut moves = interleave(&black, &white);
        moves.push((7, 7));
        let mut r = referee(Rule::Renju, 15);
        assert_eq!(play_all(&mut r, &moves), Ok(Verdict::Forbidden));
        // Item 54: white's overline wins in renju.
        let white = [(3, 7), (4, 7), (5, 7), (6, 7), (8, 7)];
        let black = [(2, 7), (9, 7), (0, 0), (0, 2), (0, 4), (0, 6)];
        let mut moves = interleave(&black, &white);
        moves.push((7, 7));
        let mut r = referee(Rule::Renju, 15);
        assert_eq!(play_all(&mut r, &moves), Ok(Verdict::Five));
    }

    #[test]
    fn renju_double_three_is_forbidden_five_is_not() {
        // Black 6,7 7,6 and 6,5? Use a simple cross: black 7,5 7,6 (vertical) and 5,7 6,7
        // (horizontal); 7,7 makes two open threes.
        let black = [(7, 5), (7, 6), (5, 7), (6, 7)];
        let white = [(0, 0), (0, 2), (0, 4), (0, 6)];
        let mut moves = interleave(&black, &white);
        moves.push((7, 7));
        let mut r = referee(Rule::Renju, 15);
        assert_eq!(play_all(&mut r, &moves), Ok(Verdict::Forbidden));
        // The same square is fine in freestyle and for white's colour rules.
        let mut r = referee(Rule::Freestyle, 15);
        assert_eq!(play_all(&mut r, &moves), Ok(Verdict::Continue));
        // Black exact five wins even if it also makes a double four elsewhere: a plain five.
        let black = [(3, 7), (4, 7), (5, 7), (6, 7), (7, 7)];
        let white = [(3, 0), (5, 0), (7, 0), (9, 0)];
        let mut r = referee(Rule::Renju, 15);
        assert_eq!(
            play_all(&mut r, &interleave(&black, &white)),
            Ok(Verdict::Five)
        );
    }

    #[test]
    fn renju_position_from_gomocup_tests() {
        // protocol.md §6 item 51: h8h9i7i9h10i6i11i12, black to move; g9 (6,8) is forbidden.
        let moves = [
            (7, 7),
            (7, 8),
            (8, 6),
            (8, 8),
            (7, 9),
            (8, 5),
            (8, 10),
            (8, 11),
        ];
        let mut r = referee(Rule::Renju, 15);
        assert_eq!(play_all(&mut r, &moves), Ok(Verdict::Continue));
        let mut copy = r.clone();
        assert_eq!(copy.play(6, 8), Ok(Verdict::Forbidden));
        assert_eq!(r.play(6, 7), Ok(Verdict::Continue));
    }

    #[test]
    fn caro_blocked_five_is_no_win() {
        // protocol.md §4.4: h8f8g8f9i8f7j8l8, black to move; k8 (10,7) is a five blocked at
        // both ends (f8 = 5,7 and l8 = 11,7 are white): no win under caro, a win in freestyle.
        let moves = [
            (7, 7),
            (5, 7),
            (6, 7),
            (5, 8),
            (8, 7),
            (5, 6),
            (9, 7),
            (11, 7),
        ];
        for rule in [Rule::Caro, Rule::CaroOverline] {
            let mut r = referee(rule, 15);
            assert_eq!(play_all(&mut r, &moves), Ok(Verdict::Continue));
            assert_eq!(r.play(10, 7), Ok(Verdict::Continue), "{rule:?}");
        }
        let mut r = referee(Rule::Freestyle, 15);
        play_all(&mut r, &moves).unwrap();
        assert_eq!(r.play(10, 7), Ok(Verdict::Five));
        // An open caro five wins.
        let black = [(3, 7), (4, 7), (5, 7), (6, 7), (7, 7)];
        let white = [(3, 0), (5, 0), (7, 0), (9, 0)];
        let mut r = referee(Rule::Caro, 15);
        assert_eq!(
            play_all(&mut r, &interleave(&black, &white)),
            Ok(Verdict::Five)
        );
    }

    #[test]
    fn caro9_overline_no_win_caro8_overline_wins() {
        let black = [(3, 7), (4, 7), (5, 7), (6, 7), (8, 7)];
        let white = [(3, 0), (5, 0), (7, 0), (9, 0), (11, 0)];
        let mut moves = interleave(&black, &white);
        moves.push((7, 7));
        let mut r = referee(Rule::Caro, 15);
        assert_eq!(play_all(&mut r, &moves), Ok(Verdict::Continue));
        let mut r = referee(Rule::CaroOverline, 15);
        assert_eq!(play_all(&mut r, &moves), Ok(Verdict::Five));
    }

    #[test]
    fn draws() {
        let table = Arc::new(PatternTable::new(Rule::Freestyle));
        let mut r = Referee::new(15, table.clone(), Some(4)).unwrap();
        assert_eq!(
            play_all(&mut r, &[(0, 0), (5, 5), (10, 10), (14, 0)]),
            Ok(Verdict::DrawAfter)
        );
        // Fill a 5×5 board without any five: rows in the pattern XXOOX / OOXXO alternating.
        let mut r = Referee::new(5, table, None).unwrap();
        let rows = ["XXOOX", "OOXXO", "XXOOX", "OOXXO", "XXOOX"];
        let mut black = Vec::new();
        let mut white = Vec::new();
        for (y, row) in rows.iter().enumerate() {
            for (x, c) in row.chars().enumerate() {
                if c == 'X' {
                    black.push((x as i64, y as i64));
                } else {
                    white.push((x as i64, y as i64));
                }
            }
        }
        assert_eq!(black.len(), 13);
        assert_eq!(
            play_all(&mut r, &interleave(&black, &white)),
            Ok(Verdict::FullBoard)
        );
    }
}
