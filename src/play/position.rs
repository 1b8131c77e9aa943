//! The games the page knows, as two kinds of the same thing: a position that takes moves,
//! judges them, takes them back and says who is to move. The game model ([`super::game`]) only
//! talks to [`Position`], so a second game costs one more variant here, not a second server.
//!
//! Squares are `(x, y)` with `y = 0` at the top (the Gomocup convention); a Connect Four move
//! names a column, and [`Position::play`] answers with the square the disc landed on. In
//! Connect Four black is the first player (red on the page), white the second (yellow).

use std::sync::Arc;

use super::gomoku::Gomoku;
use crate::{
    board::Stone,
    connect4,
    rules::{PatternTable, Rule},
};

/// Smallest Connect Four board side: a four must fit.
pub const CONNECT4_MIN_SIDE: usize = 4;

/// A square, `(x, y)`.
pub type Xy = (usize, usize);

/// What a legal move did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Played {
    /// The game goes on.
    Continue,
    /// The mover won: its winning line, in line order.
    Won(Vec<Xy>),
    /// Renju: black (a computer) played a forbidden square and loses.
    Foul,
    /// No move is left: a draw.
    Draw,
}

/// Why a move was not played; the position is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Outside the board.
    OffBoard,
    /// A stone is already there.
    Occupied,
    /// Renju: black may not play there.
    Forbidden,
    /// Connect Four: the column is full.
    ColumnFull,
}

impl Refusal {
    /// A sentence for the person who tried.
    pub fn text(self) -> &'static str {
        match self {
            Refusal::OffBoard => "that square is outside the board",
            Refusal::Occupied => "that square is already taken",
            Refusal::Forbidden => "that square is forbidden for black under renju",
            Refusal::ColumnFull => "that column is full",
        }
    }
}

/// Which game, on which board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Gomoku under `rule` on a `size`×`size` board.
    Gomoku {
        /// The rule.
        rule: Rule,
        /// Side length.
        size: usize,
    },
    /// Connect Four on a `width`×`height` upright board.
    ConnectFour {
        /// Columns.
        width: usize,
        /// Rows.
        height: usize,
    },
}

impl Variant {
    /// `gomoku` or `connect4`, as the API names the game.
    pub fn game_name(self) -> &'static str {
        match self {
            Variant::Gomoku { .. } => "gomoku",
            Variant::ConnectFour { .. } => "connect4",
        }
    }

    /// Board width and height.
    pub fn dimensions(self) -> (usize, usize) {
        match self {
            Variant::Gomoku { size, .. } => (size, size),
            Variant::ConnectFour { width, height } => (width, height),
        }
    }

    /// The rule's name (`freestyle`, `renju`, …; the game's name for games without rules).
    pub fn rule_name(self) -> &'static str {
        match self {
            Variant::Gomoku { rule, .. } => rule.name(),
            Variant::ConnectFour { .. } => "connect4",
        }
    }

    /// True when Connect Four can be played on `width`×`height` (a four fits, and the solver's
    /// bitboards hold the board).
    pub fn connect4_fits(width: usize, height: usize) -> bool {
        width >= CONNECT4_MIN_SIDE
            && height >= CONNECT4_MIN_SIDE
            && connect4::bits::size_fits(width, height)
    }
}

/// A position of one of the games.
#[derive(Clone, Debug)]
pub enum Position {
    /// Gomoku.
    Gomoku(Box<Gomoku>),
    /// Connect Four.
    ConnectFour(connect4::Position),
}

impl Position {
    /// The empty board of `variant`; `table` must be the pattern table of a Gomoku variant's
    /// rule. `None` for an unsupported size.
    pub fn new(variant: Variant, table: Option<Arc<PatternTable>>) -> Option<Position> {
        match variant {
            Variant::Gomoku { size, rule } => {
                let table = table.filter(|t| t.rule() == rule)?;
                Gomoku::new(size, table).map(|g| Position::Gomoku(Box::new(g)))
            }
            Variant::ConnectFour { width, height } => {
                if !Variant::connect4_fits(width, height) {
                    return None;
                }
                connect4::Position::new(width, height).map(Position::ConnectFour)
            }
        }
    }

    /// The colour to move (black moves first in every game).
    pub fn side_to_move(&self) -> Stone {
        match self {
            Position::Gomoku(g) => g.side_to_move(),
            Position::ConnectFour(c) => match c.side_to_move() {
                connect4::Player::First => Stone::Black,
                connect4::Player::Second => Stone::White,
            },
        }
    }

    /// Plays the side to move. `person`: a person's move, so a renju-forbidden square is
    /// refused instead of losing. Connect Four takes the column `x` (`y` is ignored). Returns
    /// the square taken and what the move did.
    pub fn play(&mut self, x: i64, y: i64, person: bool) -> Result<(Xy, Played), Refusal> {
        match self {
            Position::Gomoku(g) => g.play(x, y, person).map(|p| ((x as usize, y as usize), p)),
            Position::ConnectFour(c) => {
                let column = usize::try_from(x).map_err(|_| Refusal::OffBoard)?;
                let height = c.height();
                let played = c.play(column).map_err(|e| match e {
                    connect4::MoveError::ColumnFull(_) => Refusal::ColumnFull,
                    connect4::MoveError::NoSuchColumn(_) | connect4::MoveError::GameOver => {
                        Refusal::OffBoard
                    }
                })?;
                let at = (column, height - 1 - played.row);
                let result = match played.outcome {
                    connect4::Outcome::Ongoing => Played::Continue,
                    connect4::Outcome::Draw => Played::Draw,
                    connect4::Outcome::Won(_) => Played::Won(
                        c.winning_line()
                            .into_iter()
                            .map(|(col, row)| (col, height - 1 - row))
                            .collect(),
                    ),
                };
                Ok((at, result))
            }
        }
    }

    /// The Connect Four position, if this is one.
    pub fn connect4(&self) -> Option<&connect4::Position> {
        match self {
            Position::ConnectFour(c) => Some(c),
            Position::Gomoku(_) => None,
        }
    }

    /// Takes back the last move.
    pub fn undo(&mut self) {
        match self {
            Position::Gomoku(g) => g.undo(),
            Position::ConnectFour(c) => {
                c.undo();
            }
        }
    }

    /// Squares the side to move may not play although they are empty (renju's forbidden
    /// points for black).
    pub fn forbidden_points(&mut self) -> Vec<Xy> {
        match self {
            Position::Gomoku(g) => g.forbidden_points(),
            Position::ConnectFour(_) => Vec::new(),
        }
    }
}
