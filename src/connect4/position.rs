//! A Connect Four game as players see it: a board of any supported size, moves by column with
//! gravity, the result, undo, the winning four, and the move-string and ASCII forms.
//!
//! Columns are numbered from 0 (left) in the API and from 1 in move strings (`"4453"`: columns
//! 4, 4, 5, 3); rows from 0 at the bottom. [`Player::First`] moves first and shows as `X`,
//! [`Player::Second`] as `O`:
//!
//! ```
//! use wuzi::connect4::Position;
//!
//! let mut pos = Position::from_moves(7, 6, "4453").unwrap();
//! assert_eq!(pos.play(3).unwrap().row, 2);
//! assert_eq!(pos.to_string(), "\
//! . . . . . . .
//! . . . . . . .
//! . . . . . . .
//! . . . X . . .
//! . . . O . . .
//! . . O X X . .
//! ");
//! ```

use std::fmt;

use super::bits::{self, Dynamic, Geometry};

/// One of the two players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    /// Moves first; `X` in diagrams.
    First,
    /// Moves second; `O` in diagrams.
    Second,
}

impl Player {
    /// The other player.
    pub fn other(self) -> Player {
        match self {
            Player::First => Player::Second,
            Player::Second => Player::First,
        }
    }

    /// `X` or `O`.
    pub fn symbol(self) -> char {
        match self {
            Player::First => 'X',
            Player::Second => 'O',
        }
    }
}

/// Where a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Moves remain and nobody has four.
    Ongoing,
    /// The player made four in a row with the last move.
    Won(Player),
    /// The board is full without a four.
    Draw,
}

/// What a legal move did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    /// The row the disc landed on (0 = bottom).
    pub row: usize,
    /// The game after the move.
    pub outcome: Outcome,
}

/// Why a move was refused; the position is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// The column (0-based) is not on the board.
    NoSuchColumn(usize),
    /// The column (0-based) is full.
    ColumnFull(usize),
    /// The game is already won or drawn.
    GameOver,
}

impl fmt::Display for MoveError {
    /// Column numbers as players count them, from 1.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::NoSuchColumn(c) => write!(f, "there is no column {}", c + 1),
            MoveError::ColumnFull(c) => write!(f, "column {} is full", c + 1),
            MoveError::GameOver => write!(f, "the game is already over"),
        }
    }
}

/// A move string that does not describe a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// The size is not supported (see [`Position::new`]).
    BadSize {
        /// Columns asked for.
        width: usize,
        /// Rows asked for.
        height: usize,
    },
    /// A character that is not a column digit.
    BadCharacter {
        /// The 1-based number of the move.
        move_number: usize,
        /// The character.
        found: char,
    },
    /// A digit naming an illegal move.
    Illegal {
        /// The 1-based number of the move.
        move_number: usize,
        /// Why it is illegal.
        error: MoveError,
    },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::BadSize { width, height } => write!(
                f,
                "a {width}×{height} board is not supported (1 to 9 columns, width × (height + 1) at most 64)"
            ),
            ParseError::BadCharacter { move_number, found } => {
                write!(f, "move {move_number}: `{found}` is not a column digit")
            }
            ParseError::Illegal { move_number, error } => write!(f, "move {move_number}: {error}"),
        }
    }
}

impl std::error::Error for ParseError {}

/// A game in progress: the board, whose turn it is, and the moves so far.
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    width: usize,
    height: usize,
    geometry: Dynamic,
    /// The side to move's discs.
    current: u64,
    /// Every disc.
    mask: u64,
    /// Columns played, 0-based.
    history: Vec<usize>,
    outcome: Outcome,
}

impl Position {
    /// The empty `width`×`height` board; `None` unless 1 ≤ width ≤ 9, height ≥ 1 and
    /// width × (height + 1) ≤ 64 (the board and a spare bit per column fit 64 bits).
    pub fn new(width: usize, height: usize) -> Option<Position> {
        if !bits::size_fits(width, height) {
            return None;
        }
        Some(Position {
            width,
            height,
            geometry: Dynamic::new(width as u32, height as u32),
            current: 0,
            mask: 0,
            history: Vec::new(),
            outcome: Outcome::Ongoing,
        })
    }

    /// The position after the moves of `moves`, digits `1`..=`width`.
    pub fn from_moves(width: usize, height: usize, moves: &str) -> Result<Position, ParseError> {
        let mut pos = Position::new(width, height).ok_or(ParseError::BadSize { width, height })?;
        for (i, c) in moves.chars().enumerate() {
            let move_number = i + 1;
            let col = match c.to_digit(10) {
                Some(d) if d >= 1 => d as usize - 1,
                _ => {
                    return Err(ParseError::BadCharacter {
                        move_number,
                        found: c,
                    })
                }
            };
            if let Err(error) = pos.play(col) {
                return Err(ParseError::Illegal { move_number, error });
            }
        }
        Ok(pos)
    }

    /// A position drawn as rows from top to bottom, `X` for the first player, `O` for the
    /// second, `.` for empty, with or without spaces between cells. `None` if the drawing is
    /// ragged, has floating discs, impossible disc counts, or cannot be reached by a game
    /// without an earlier four. The move history is one such game.
    pub fn from_ascii(diagram: &str) -> Option<Position> {
        let rows: Vec<Vec<char>> = diagram
            .lines()
            .map(|l| l.chars().filter(|c| !c.is_whitespace()).collect::<Vec<_>>())
            .filter(|r| !r.is_empty())
            .collect();
        let height = rows.len();
        let width = rows.first()?.len();
        if rows.iter().any(|r| r.len() != width) {
            return None;
        }
        // Per column, the discs bottom up.
        let mut columns = vec![Vec::new(); width];
        for (col, column) in columns.iter_mut().enumerate() {
            let mut gap = false;
            for row in rows.iter().rev() {
                match row[col] {
                    '.' => gap = true,
                    'X' | 'x' if !gap => column.push(Player::First),
                    'O' | 'o' if !gap => column.push(Player::Second),
                    _ => return None,
                }
            }
        }
        let mut pos = Position::new(width, height)?;
        let total: usize = columns.iter().map(Vec::len).sum();
        let mut next = vec![0; width];
        if replay(&mut pos, &columns, &mut next, total) {
            Some(pos)
        } else {
            None
        }
    }

    /// Columns.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Rows.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Discs on the board.
    pub fn moves_played(&self) -> usize {
        self.history.len()
    }

    /// The columns played so far, 0-based, first move first.
    pub fn history(&self) -> &[usize] {
        &self.history
    }

    /// The moves as a string of 1-based column digits, as [`Position::from_moves`] reads them.
    pub fn to_moves(&self) -> String {
        self.history
            .iter()
            .map(|&c| char::from(b'1' + c as u8))
            .collect()
    }

    /// The player whose turn it is (after a win: the loser).
    pub fn side_to_move(&self) -> Player {
        if self.history.len() % 2 == 0 {
            Player::First
        } else {
            Player::Second
        }
    }

    /// Won, drawn or still going.
    pub fn outcome(&self) -> Outcome {
        self.outcome
    }

    /// True if the last move made four in a row.
    pub fn is_won(&self) -> bool {
        matches!(self.outcome, Outcome::Won(_))
    }

    /// True if `col` is on the board, not full, and the game is not over.
    pub fn can_play(&self, col: usize) -> bool {
        col < self.width
            && self.outcome == Outcome::Ongoing
            && self.mask & self.geometry.top_cell(col as u32) == 0
    }

    /// The columns the side to move may play, left to right (none once the game is over).
    pub fn legal_columns(&self) -> Vec<usize> {
        (0..self.width).filter(|&c| self.can_play(c)).collect()
    }

    /// The owner of the disc at `col`, `row` (row 0 = bottom), if any.
    pub fn cell(&self, col: usize, row: usize) -> Option<Player> {
        if col >= self.width || row >= self.height {
            return None;
        }
        let bit = 1u64 << (col * (self.height + 1) + row);
        if self.mask & bit == 0 {
            None
        } else if (self.current & bit != 0) == (self.side_to_move() == Player::First) {
            Some(Player::First)
        } else {
            Some(Player::Second)
        }
    }

    /// Discs in column `col`.
    pub fn column_height(&self, col: usize) -> usize {
        ((self.mask >> (col * (self.height + 1))) & ((1u64 << self.height) - 1)).count_ones()
            as usize
    }

    /// Drops a disc of the side to move into `col`.
    pub fn play(&mut self, col: usize) -> Result<Played, MoveError> {
        if self.outcome != Outcome::Ongoing {
            return Err(MoveError::GameOver);
        }
        if col >= self.width {
            return Err(MoveError::NoSuchColumn(col));
        }
        if !self.can_play(col) {
            return Err(MoveError::ColumnFull(col));
        }
        let row = self.column_height(col);
        let mover = self.side_to_move();
        let bit = 1u64 << (col * (self.height + 1) + row);
        let mine = self.current | bit;
        self.mask |= bit;
        self.current = mine ^ self.mask;
        self.history.push(col);
        self.outcome = if bits::has_four(self.geometry, mine) {
            Outcome::Won(mover)
        } else if self.history.len() == self.width * self.height {
            Outcome::Draw
        } else {
            Outcome::Ongoing
        };
        Ok(Played {
            row,
            outcome: self.outcome,
        })
    }

    /// Takes back the last move and returns its column; `None` on the empty board.
    pub fn undo(&mut self) -> Option<usize> {
        let col = self.history.pop()?;
        let row = self.column_height(col) - 1;
        let bit = 1u64 << (col * (self.height + 1) + row);
        self.current ^= self.mask;
        self.mask &= !bit;
        self.current &= !bit;
        self.outcome = Outcome::Ongoing;
        Some(col)
    }

    /// The cells `(col, row)` of every line of four or more through the last move, in line
    /// order per line; empty unless the last move won.
    pub fn winning_line(&self) -> Vec<(usize, usize)> {
        let mover = match self.outcome {
            Outcome::Won(p) => p,
            _ => return Vec::new(),
        };
        let col = match self.history.last() {
            Some(&c) => c as i64,
            None => return Vec::new(),
        };
        let row = self.column_height(col as usize) as i64 - 1;
        let mine = |c: i64, r: i64| {
            c >= 0
                && r >= 0
                && self.cell(c as usize, r as usize) == Some(mover)
                && (c as usize) < self.width
        };
        let mut cells = Vec::new();
        for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
            let mut start = 0;
            while mine(col - (start + 1) * dc, row - (start + 1) * dr) {
                start += 1;
            }
            let mut end = 0;
            while mine(col + (end + 1) * dc, row + (end + 1) * dr) {
                end += 1;
            }
            if start + end + 1 >= 4 {
                for k in -start..=end {
                    let cell = ((col + k * dc) as usize, (row + k * dr) as usize);
                    if !cells.contains(&cell) {
                        cells.push(cell);
                    }
                }
            }
        }
        cells
    }

    /// The side to move's discs and every disc, in the layout of [`super::bits`].
    pub(crate) fn bits(&self) -> (u64, u64) {
        (self.current, self.mask)
    }
}

/// Finds an order of the discs in `columns` (bottom up per column) that alternates players,
/// first player first, with no four before the last disc; plays it into `pos`.
fn replay(pos: &mut Position, columns: &[Vec<Player>], next: &mut [usize], left: usize) -> bool {
    if left == 0 {
        return true;
    }
    if pos.outcome != Outcome::Ongoing {
        return false;
    }
    let mover = pos.side_to_move();
    for col in 0..columns.len() {
        if columns[col].get(next[col]) != Some(&mover) {
            continue;
        }
        if pos.play(col).is_err() {
            continue;
        }
        next[col] += 1;
        if replay(pos, columns, next, left - 1) {
            return true;
        }
        next[col] -= 1;
        pos.undo();
    }
    false
}

impl fmt::Display for Position {
    /// The board top row first, cells separated by spaces, one line per row.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in (0..self.height).rev() {
            for col in 0..self.width {
                if col > 0 {
                    f.write_str(" ")?;
                }
                let c = self.cell(col, row).map_or('.', Player::symbol);
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Position {}x{} \"{}\"\n{}",
            self.width,
            self.height,
            self.to_moves(),
            self
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(moves: &str) -> Position {
        Position::from_moves(7, 6, moves).expect("a legal test game")
    }

    #[test]
    fn discs_fall_to_the_bottom() {
        let pos = board("44443");
        assert_eq!(
            pos.to_string(),
            "\
. . . . . . .
. . . . . . .
. . . O . . .
. . . X . . .
. . . O . . .
. . X X . . .
"
        );
        assert_eq!(pos.side_to_move(), Player::Second);
        assert_eq!(pos.column_height(3), 4);
        assert_eq!(pos.cell(2, 0), Some(Player::First));
        assert_eq!(pos.cell(2, 1), None);
    }

    #[test]
    fn a_full_column_refuses_a_move() {
        let mut pos = board("444444");
        assert_eq!(pos.play(3), Err(MoveError::ColumnFull(3)));
        assert_eq!(pos.play(7), Err(MoveError::NoSuchColumn(7)));
        assert!(!pos.legal_columns().contains(&3));
        assert_eq!(pos.legal_columns().len(), 6);
        assert_eq!(pos.moves_played(), 6);
    }

    #[test]
    fn four_in_every_direction_wins() {
        // Horizontal, vertical, both diagonals: the winner, and the four it made.
        let cases: [(&str, Vec<(usize, usize)>); 4] = [
            ("1122334", vec![(0, 0), (1, 0), (2, 0), (3, 0)]),
            ("1212121", vec![(0, 0), (0, 1), (0, 2), (0, 3)]),
            ("12233444374", vec![(0, 0), (1, 1), (2, 2), (3, 3)]),
            ("76655444514", vec![(6, 0), (5, 1), (4, 2), (3, 3)]),
        ];
        for (moves, line) in cases {
            let mut pos = board(&moves[..moves.len() - 1]);
            assert_eq!(pos.outcome(), Outcome::Ongoing, "{moves}");
            let last = moves.as_bytes()[moves.len() - 1] - b'1';
            let played = pos.play(last as usize).expect("legal");
            assert_eq!(played.outcome, Outcome::Won(Player::First), "{moves}");
            let mut got = pos.winning_line();
            got.sort_unstable();
            let mut want = line.clone();
            want.sort_unstable();
            assert_eq!(got, want, "{moves}\n{pos}");
            assert_eq!(pos.play(0), Err(MoveError::GameOver));
            assert!(pos.legal_columns().is_empty());
        }
    }

    #[test]
    fn the_winning_line_covers_a_five_and_a_cross() {
        let pos = Position::from_ascii(
            "
            . . . . . . .
            . . . . . . .
            . . . X . . .
            . . . X O . .
            O . O X O . .
            X X X X X O O
            ",
        );
        // This drawing has two fours already (horizontal and vertical): no game reaches it.
        assert!(pos.is_none());
        let mut pos = Position::from_ascii(
            "
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . X O . .
            O O . X O . .
            X X . X X O O
            ",
        )
        .expect("reachable");
        assert_eq!(pos.side_to_move(), Player::First);
        pos.play(2).expect("legal");
        assert!(pos.is_won());
        assert_eq!(
            pos.winning_line(),
            vec![(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)]
        );
    }

    #[test]
    fn a_full_board_without_four_is_a_draw() {
        let mut pos = Position::new(4, 1).expect("4×1 fits");
        assert_eq!(pos.play(0).map(|p| p.outcome), Ok(Outcome::Ongoing));
        pos.play(1).expect("legal");
        pos.play(3).expect("legal");
        assert_eq!(pos.play(2).map(|p| p.outcome), Ok(Outcome::Draw));
        assert_eq!(pos.play(2), Err(MoveError::GameOver));
        assert_eq!(pos.outcome(), Outcome::Draw);
    }

    #[test]
    fn undo_restores_the_position() {
        let mut pos = board("4455");
        let before = pos.clone();
        pos.play(5).expect("legal");
        pos.play(5).expect("legal");
        pos.play(0).expect("legal");
        assert!(!pos.is_won());
        pos.play(0).expect("legal");
        assert_eq!(pos.undo(), Some(0));
        assert_eq!(pos.undo(), Some(0));
        assert_eq!(pos.undo(), Some(5));
        assert_eq!(pos.undo(), Some(5));
        assert_eq!(pos, before);
        let mut won = board("112233");
        won.play(3).expect("legal");
        assert!(won.is_won());
        won.undo();
        assert_eq!(won.outcome(), Outcome::Ongoing);
        assert_eq!(won, board("112233"));
    }

    #[test]
    fn move_strings_round_trip_and_errors_name_the_move() {
        let pos = board("4453627");
        assert_eq!(pos.to_moves(), "4453627");
        assert_eq!(
            Position::from_moves(7, 6, "448").unwrap_err().to_string(),
            "move 3: there is no column 8"
        );
        assert_eq!(
            Position::from_moves(7, 6, "1111111")
                .unwrap_err()
                .to_string(),
            "move 7: column 1 is full"
        );
        assert_eq!(
            Position::from_moves(7, 6, "12121213")
                .unwrap_err()
                .to_string(),
            "move 8: the game is already over"
        );
        assert_eq!(
            Position::from_moves(7, 6, "40").unwrap_err(),
            ParseError::BadCharacter {
                move_number: 2,
                found: '0'
            }
        );
        assert!(matches!(
            Position::from_moves(8, 8, ""),
            Err(ParseError::BadSize { .. })
        ));
    }

    #[test]
    fn ascii_diagrams_round_trip_on_seven_by_seven() {
        let pos = Position::from_moves(7, 7, "4444444").expect("legal");
        let drawn = pos.to_string();
        assert_eq!(drawn.lines().count(), 7);
        let back = Position::from_ascii(&drawn).expect("reachable");
        assert_eq!(back.to_string(), drawn);
        assert_eq!(back.bits(), pos.bits());
        assert!(!pos.can_play(3));
        assert!(
            Position::from_ascii(". X\n. .\n").is_none(),
            "floating disc"
        );
        assert!(
            Position::from_ascii("O .\n").is_none(),
            "second player first"
        );
    }
}
