//! The computer's search where the solver does not finish in time: iterative deepening
//! alpha-beta on an evaluation, with exact scores wherever the game ends inside the horizon.
//!
//! Scores: a finished game scores `±(PROVEN + s)` where `s` is the solver's score of the win
//! (so a proven win found here is a real forced win, and a faster one scores higher); anything
//! else is the evaluation, far below [`PROVEN`]. The evaluation counts, for each side, the
//! lines of four it can still complete, weighted by the discs it has in them (the open-run
//! count of the report this game comes from), and adds the cells where a disc would complete a
//! four, more for cells on the rows that side's parity favours (odd rows, counted from 1 at
//! the bottom, for the first player; even rows for the second), and a little for central discs.

use std::{
    sync::atomic::{AtomicBool, Ordering},
    time::Instant,
};

use super::{
    bits::{self, with_geometry, Geometry},
    solver::{centre_order, win_now_score, Node},
    Position,
};

/// Scores at or beyond this (in absolute value) are proven results.
pub const PROVEN: i32 = 100_000;
const INFINITY: i32 = 1_000_000;
/// Evaluation weights: per line of four with 1, 2, 3 of a side's discs and no opponent disc.
const LINE_WEIGHTS: [i32; 4] = [0, 1, 4, 16];
/// Per cell that would complete a four, on the side's good row parity and on the other.
const THREAT_GOOD: i32 = 40;
const THREAT_OTHER: i32 = 16;
/// Per disc in the centre column.
const CENTRE_DISC: i32 = 3;
/// Table entries (2^18, 4 MiB).
const TABLE_BITS: u32 = 18;
const CHECK_EVERY: u64 = 1024;

/// What a search found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    /// The move (0-based column).
    pub column: usize,
    /// Its score for the side to move (see the module doc).
    pub score: i32,
    /// The last depth searched completely, in plies.
    pub depth: u32,
}

/// Limits of a heuristic search.
#[derive(Clone, Copy, Debug, Default)]
pub struct Budget<'a> {
    /// No deeper than this many plies.
    pub max_depth: u32,
    /// Stop at this instant (the depth being searched is dropped).
    pub deadline: Option<Instant>,
    /// Stop when any of these becomes true.
    pub stops: [Option<&'a AtomicBool>; 2],
}

/// The proven score of a solver score `s` (> 0 win, < 0 loss, 0 draw).
pub fn proven(s: i32) -> i32 {
    match s.signum() {
        1 => PROVEN + s,
        -1 => -PROVEN + s,
        _ => 0,
    }
}

/// Iterative deepening on `pos` (game not over). `noise(col)` is added to each root move's
/// score unless proven (weaker levels pass random noise; pass `|_| 0` for the best move).
/// Returns the best move of the deepest completed iteration (at least depth 1 is always
/// completed), or `None` if the game is over.
pub fn search(
    pos: &Position,
    budget: Budget<'_>,
    noise: &mut dyn FnMut(usize) -> i32,
) -> Option<Found> {
    if pos.outcome() != super::Outcome::Ongoing {
        return None;
    }
    let node = Node::of(pos);
    with_geometry!(pos.width(), pos.height(), |g| {
        let mut s = Searcher::new(g, budget);
        s.iterate(node, noise)
    })
}

struct Searcher<'a, G: Geometry> {
    g: G,
    budget: Budget<'a>,
    nodes: u64,
    aborted: bool,
    /// Direct-mapped: (key, data); data = score (32) | depth (8) | bound (2) | move + 1 (4).
    table: Vec<(u64, u64)>,
    order: Vec<u32>,
    good_rows: [u64; 2],
    centre: u64,
}

const LOWER: u64 = 1;
const UPPER: u64 = 2;
const EXACT: u64 = 3;

impl<'a, G: Geometry> Searcher<'a, G> {
    fn new(g: G, budget: Budget<'a>) -> Searcher<'a, G> {
        let rows = |parity: u32| {
            (0..g.height())
                .filter(|r| r % 2 == parity)
                .fold(0, |m, r| m | g.bottom() << r)
        };
        Searcher {
            g,
            budget,
            nodes: 0,
            aborted: false,
            table: vec![(0, 0); 1 << TABLE_BITS],
            order: centre_order(g.width()),
            // Row 0 is the first row (odd, counted from 1): the first player's.
            good_rows: [rows(0), rows(1)],
            centre: g.column((g.width() - 1) / 2)
                | if g.width() % 2 == 0 {
                    g.column(g.width() / 2)
                } else {
                    0
                },
        }
    }

    fn stopped(&mut self) -> bool {
        if !self.aborted && self.nodes % CHECK_EVERY == 0 {
            let flagged = self
                .budget
                .stops
                .iter()
                .flatten()
                .any(|s| s.load(Ordering::Relaxed));
            if flagged || self.budget.deadline.map_or(false, |d| Instant::now() >= d) {
                self.aborted = true;
            }
        }
        self.aborted
    }

    fn iterate(&mut self, root: Node, noise: &mut dyn FnMut(usize) -> i32) -> Option<Found> {
        let g = self.g;
        let left = g.cells() - root.moves;
        let mut found: Option<Found> = None;
        let mut noises = vec![0; g.width() as usize];
        for (col, n) in noises.iter_mut().enumerate() {
            *n = noise(col);
        }
        let max_depth = self.budget.max_depth.clamp(1, left.max(1));
        for depth in 1..=max_depth {
            match self.root(root, depth, &noises) {
                Some((column, score)) => {
                    found = Some(Found {
                        column,
                        score,
                        depth,
                    });
                    if score.abs() >= PROVEN {
                        break;
                    }
                }
                None => break,
            }
        }
        found
    }

    /// One iteration at the root: every move searched with a full window (so noise compares
    /// real values). `None` if stopped before the end (depth 1 always finishes).
    fn root(&mut self, node: Node, depth: u32, noises: &[i32]) -> Option<(usize, i32)> {
        let g = self.g;
        let possible = bits::playable(g, node.mask);
        let mut best: Option<(usize, i32, i32)> = None;
        let order = self.order.clone();
        for col in order {
            if possible & g.column(col) == 0 {
                continue;
            }
            let score = if node.wins_with(g, col) {
                proven(win_now_score(g.cells(), node.moves))
            } else {
                let child = node.play_column(g, col);
                -self.alphabeta(child, depth - 1, -INFINITY, INFINITY)
            };
            if self.aborted && depth > 1 {
                return None;
            }
            let noisy = if score.abs() >= PROVEN {
                score
            } else {
                score + noises[col as usize]
            };
            if best.map_or(true, |(_, _, b)| noisy > b) {
                best = Some((col as usize, score, noisy));
            }
        }
        best.map(|(c, s, _)| (c, s))
    }

    fn alphabeta(&mut self, node: Node, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        let g = self.g;
        self.nodes += 1;
        if self.stopped() {
            return 0;
        }
        let cells = g.cells() as i32;
        let n = node.moves as i32;
        if node.can_win_now(g) {
            return proven(win_now_score(g.cells(), node.moves));
        }
        if n >= cells {
            return 0;
        }
        let opponent = node.current ^ node.mask;
        let possible = bits::playable(g, node.mask);
        let opp_win = bits::winning_cells(g, opponent, node.mask);
        let forced = possible & opp_win;
        let mut candidates = possible;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return proven(-(cells - n) / 2);
            }
            candidates = forced;
        }
        candidates &= !(opp_win >> 1);
        if candidates == 0 {
            return proven(-(cells - n) / 2);
        }
        if n >= cells - 2 {
            return 0;
        }
        if depth == 0 {
            return self.evaluate(node);
        }

        let key = node.key();
        let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - TABLE_BITS)) as usize;
        let mut table_move = None;
        let (stored_key, data) = self.table[slot];
        if stored_key == key && data != 0 {
            let score = data as u32 as i32;
            let stored_depth = ((data >> 32) & 0xFF) as u32;
            let bound = (data >> 40) & 3;
            table_move = match (data >> 42) & 0xF {
                0 => None,
                c => Some(c as u32 - 1),
            };
            if stored_depth >= depth || score.abs() >= PROVEN {
                match bound {
                    EXACT => return score,
                    LOWER if score >= beta => return score,
                    UPPER if score <= alpha => return score,
                    _ => {}
                }
            }
        }

        let mut moves = [(0u64, 0i32); bits::MAX_WIDTH];
        let mut count = 0;
        for &col in &self.order {
            let bit = candidates & g.column(col);
            if bit == 0 {
                continue;
            }
            let score = if Some(col) == table_move {
                i32::MAX
            } else {
                bits::winning_cells(g, node.current | bit, node.mask | bit).count_ones() as i32
            };
            let mut i = count;
            while i > 0 && moves[i - 1].1 < score {
                moves[i] = moves[i - 1];
                i -= 1;
            }
            moves[i] = (bit, score);
            count += 1;
        }

        let alpha_in = alpha;
        let mut best = -INFINITY;
        let mut best_col = None;
        for &(bit, _) in &moves[..count] {
            let child = node.play(bit);
            let score = -self.alphabeta(child, depth - 1, -beta, -alpha);
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                best_col = Some(bits::column_of(g, bit));
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                break;
            }
        }
        let bound = if best >= beta {
            LOWER
        } else if best > alpha_in {
            EXACT
        } else {
            UPPER
        };
        let data = (best as u32 as u64)
            | (depth.min(255) as u64) << 32
            | bound << 40
            | best_col.map_or(0, |c| c as u64 + 1) << 42;
        self.table[slot] = (key, data);
        best
    }

    /// The evaluation for the side to move.
    fn evaluate(&self, node: Node) -> i32 {
        let g = self.g;
        let empty = g.board() & !node.mask;
        let mover = (node.moves % 2) as usize;
        let ours = node.current;
        let theirs = node.current ^ node.mask;
        let side = |stones: u64, parity: usize| -> i32 {
            let mut score = 0;
            let open = stones | empty;
            for d in [1, g.stride(), g.stride() - 1, g.stride() + 1] {
                let shift = |x: u64, k: u32| x.checked_shr(k * d).unwrap_or(0);
                // Bit i: the line of four starting at cell i, going in direction d.
                let lines = open & shift(open, 1) & shift(open, 2) & shift(open, 3);
                if lines == 0 {
                    continue;
                }
                let (a, b, c, e) = (stones, shift(stones, 1), shift(stones, 2), shift(stones, 3));
                // Per line, the number of discs (bit-sliced: ones, twos).
                let s1 = a ^ b;
                let c1 = a & b;
                let s2 = c ^ e;
                let c2 = c & e;
                let ones = s1 ^ s2;
                let carry = s1 & s2;
                let twos = c1 ^ c2 ^ carry;
                let fours = (c1 & c2) | ((c1 ^ c2) & carry);
                let three = lines & ones & twos & !fours;
                let two = lines & !ones & twos & !fours;
                let one = lines & ones & !twos & !fours;
                score += LINE_WEIGHTS[1] * one.count_ones() as i32
                    + LINE_WEIGHTS[2] * two.count_ones() as i32
                    + LINE_WEIGHTS[3] * three.count_ones() as i32;
            }
            let threats = bits::winning_cells(g, stones, node.mask);
            let good = self.good_rows[parity];
            score += THREAT_GOOD * (threats & good).count_ones() as i32
                + THREAT_OTHER * (threats & !good).count_ones() as i32
                + CENTRE_DISC * (stones & self.centre).count_ones() as i32;
            score
        };
        side(ours, mover) - side(theirs, 1 - mover)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn best(moves: &str, w: usize, h: usize, depth: u32) -> Found {
        let pos = Position::from_moves(w, h, moves).expect("legal");
        search(
            &pos,
            Budget {
                max_depth: depth,
                ..Budget::default()
            },
            &mut |_| 0,
        )
        .expect("game not over")
    }

    #[test]
    fn takes_a_win_and_blocks_a_threat() {
        // X to move, three in a row at the bottom: the win.
        let found = best("112233", 7, 7, 4);
        assert_eq!(found.column, 3);
        assert_eq!(found.score, proven(win_now_score(49, 6)));
        // O to move must block column 4 (X threatens 1-2-3-4).
        let found = best("11223", 7, 6, 4);
        assert_eq!(found.column, 3);
    }

    #[test]
    fn finds_a_forced_win_in_three_on_seven_by_seven() {
        // X to move: 3 makes two threats (columns 2 and 6 on the bottom row).
        let found = best("4455", 7, 7, 5);
        assert!(found.score >= PROVEN, "{found:?}");
        assert!(found.column == 2 || found.column == 5, "{found:?}");
    }

    #[test]
    fn evaluation_prefers_the_centre() {
        let found = best("", 7, 7, 2);
        assert_eq!(found.column, 3);
        let found = best("", 6, 7, 2);
        assert!(found.column == 2 || found.column == 3);
    }
}
