//! Victory by continuous fours (VCF): the attacker plays only moves that make a four, the
//! defender only the one square that blocks it, until the attacker makes a five or a four the
//! defender cannot stop (two completion squares at once, or a block the defender may not play:
//! renju black's forbidden squares).
//!
//! The search reads everything from the board's incremental threat classes: the attacker's
//! candidate moves are the empty cells whose class contains a four, the defender's reply is the
//! single cell where the attacker would now make a five. A defender's block that makes a four of
//! its own must be answered first, and only by a move that is itself a four. Positions already
//! refuted are remembered in a small cache keyed by the Zobrist hash (the attacker is always the
//! side to move at those nodes), which a caller may keep between searches.

use crate::{
    board::{Board, Pos, DIRECTIONS},
    movegen,
    rules::{self, Threat},
};

/// What a VCF search found for the side to move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VcfOutcome {
    /// A forced win: attacker move, defender reply, …, ending with the attacker's five (or, when
    /// the last block is a square the defender may not play, with the attacker's last four).
    Win(Vec<Pos>),
    /// The whole VCF tree was searched: there is no forced win by fours.
    NoWin,
    /// The node budget ran out first.
    Unknown,
}

/// The result of [`find_vcf`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VcfResult {
    /// What was found.
    pub outcome: VcfOutcome,
    /// Nodes visited.
    pub nodes: u64,
}

/// Searches for a VCF of the side to move within `max_nodes` nodes (0 = no limit); `board` is
/// restored on return.
pub fn find_vcf(board: &mut Board, max_nodes: u64) -> VcfResult {
    let mut solver = VcfSolver::new(1 << 16);
    let outcome = solver.solve(board, max_nodes);
    VcfResult {
        outcome,
        nodes: solver.nodes,
    }
}

/// A reusable VCF searcher with its cache of verdicts.
pub struct VcfSolver {
    /// Direct-mapped, one word per entry: the hash with its low byte replaced by the verdict
    /// (1 = no win, 2 + n = a win in n plies); 0 = empty.
    cache: Vec<u64>,
    mask: usize,
    /// Nodes visited since creation.
    pub nodes: u64,
    limit: u64,
    out_of_budget: bool,
}

/// Verdict code of a position without a VCF.
const NO_WIN: u64 = 1;
/// Longest win (in plies) a cache entry records exactly; longer ones are recorded as this.
const MAX_CACHED_PLIES: u32 = 253;

impl VcfSolver {
    /// A solver whose cache holds `entries` verdicts (rounded up to a power of two).
    pub fn new(entries: usize) -> VcfSolver {
        let size = entries.max(2).next_power_of_two();
        VcfSolver {
            cache: vec![0; size],
            mask: size - 1,
            nodes: 0,
            limit: 0,
            out_of_budget: false,
        }
    }

    /// Searches for a VCF of the side to move with at most `max_nodes` further nodes (0 = no
    /// limit) and returns the winning line when there is one.
    pub fn solve(&mut self, board: &mut Board, max_nodes: u64) -> VcfOutcome {
        self.begin(max_nodes);
        let mut line = Vec::new();
        if self.attack(board, Some(&mut line)).is_some() {
            line.reverse();
            VcfOutcome::Win(line)
        } else if self.out_of_budget {
            VcfOutcome::Unknown
        } else {
            VcfOutcome::NoWin
        }
    }

    /// The number of plies to the five if the side to move has a VCF found within `max_nodes`
    /// further nodes (0 = no limit). Cheaper than [`VcfSolver::solve`]: cached wins are
    /// trusted and no line is kept, so the length may not be the shortest.
    pub fn win_plies(&mut self, board: &mut Board, max_nodes: u64) -> Option<u32> {
        self.begin(max_nodes);
        self.attack(board, None)
    }

    fn begin(&mut self, max_nodes: u64) {
        self.limit = if max_nodes == 0 {
            u64::MAX
        } else {
            self.nodes.saturating_add(max_nodes)
        };
        self.out_of_budget = false;
    }

    /// `None`: not cached; `Some(None)`: no win; `Some(Some(n))`: a win in `n` plies.
    fn probe(&self, hash: u64) -> Option<Option<u32>> {
        let entry = self.cache[hash as usize & self.mask];
        if entry == 0 || (entry ^ hash) >> 8 != 0 {
            return None;
        }
        match entry & 0xFF {
            NO_WIN => Some(None),
            code => Some(Some(code as u32 - 2)),
        }
    }

    fn store(&mut self, hash: u64, plies: Option<u32>) {
        let code = match plies {
            None => NO_WIN,
            Some(n) => u64::from(n.min(MAX_CACHED_PLIES)) + 2,
        };
        self.cache[hash as usize & self.mask] = (hash & !0xFF) | code;
    }

    /// Attacker (the side to move) to play; returns the plies to its five when it wins. When
    /// `line` is given, a win pushes its moves there in reverse order (the caller reverses),
    /// and cached wins are not trusted (their line is unknown).
    fn attack(&mut self, board: &mut Board, mut line: Option<&mut Vec<Pos>>) -> Option<u32> {
        self.nodes += 1;
        let me = board.side_to_move();
        let opp = me.opponent();
        if board.threat_count(me, Threat::Five) > 0 {
            if let Some(line) = line {
                if let Some(&five) = board.cells_with(me, Threat::Five).first() {
                    line.push(five);
                }
            }
            return Some(1);
        }
        if self.nodes >= self.limit {
            self.out_of_budget = true;
            return None;
        }
        let hash = board.hash();
        match self.probe(hash) {
            Some(None) => return None,
            Some(Some(n)) if line.is_none() => return Some(n),
            _ => {}
        }
        let candidates = match board.threat_count(opp, Threat::Five) {
            0 => four_moves(board),
            1 => board
                .cells_with(opp, Threat::Five)
                .into_iter()
                .filter(|&p| movegen::makes_four(board, p, board.side_to_move()))
                .collect(),
            _ => Vec::new(),
        };
        for mv in candidates {
            if rules::is_forbidden_move(board, mv) {
                continue;
            }
            board.make(mv);
            let won = self.defend(board, mv, line.as_deref_mut());
            board.undo();
            if let Some(n) = won {
                if let Some(line) = line {
                    line.push(mv);
                }
                let plies = n + 1;
                self.store(hash, Some(plies));
                return Some(plies);
            }
            if self.out_of_budget {
                return None;
            }
        }
        if !self.out_of_budget {
            self.store(hash, None);
        }
        None
    }

    /// Defender to move after the attacker's four at `four`; the plies to the attacker's five
    /// when the attacker wins.
    fn defend(
        &mut self,
        board: &mut Board,
        four: Pos,
        mut line: Option<&mut Vec<Pos>>,
    ) -> Option<u32> {
        let defender = board.side_to_move();
        let attacker = defender.opponent();
        if board.threat_count(defender, Threat::Five) > 0 {
            return None;
        }
        let block = completion_square(board, four, attacker)?;
        let forbidden = rules::is_forbidden_move(board, block);
        if forbidden || board.threat_count(attacker, Threat::Five) >= 2 {
            // Two completion squares, or a block the defender may not play: the attacker makes
            // five next move.
            // A forbidden block ends the line at the four (the defender's move is any other).
            if let (Some(line), false) = (line, forbidden) {
                line.push(other_five(board, attacker, block).unwrap_or(block));
                line.push(block);
            }
            return Some(2);
        }
        board.make(block);
        let won = self.attack(board, line.as_deref_mut());
        board.undo();
        if won.is_some() {
            if let Some(line) = line {
                line.push(block);
            }
        }
        won.map(|n| n + 1)
    }
}

/// The side to move's four-making squares, strongest first (straight fours, four-threes, then
/// plain fours by potential), ties by square.
fn four_moves(board: &Board) -> Vec<Pos> {
    let me = board.side_to_move();
    let mut moves: Vec<(i32, Pos)> = board
        .four_cells(me)
        .map(|p| {
            let rank = match board.threat(p, me) {
                Threat::FlexFour => 3,
                Threat::FourThree => 2,
                Threat::Four => 1,
                // A forbidden or double-three class with a four (renju black, or a four that
                // also makes two threes).
                _ => 0,
            };
            let value = i32::from(board.cell_info(p, me).value);
            (rank * 1_000_000 + value, p)
        })
        .collect();
    moves.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    moves.into_iter().map(|(_, p)| p).collect()
}

/// The square where `stone` would now make a five through the stone just played at `four`.
fn completion_square(board: &Board, four: Pos, stone: crate::board::Stone) -> Option<Pos> {
    for &step in DIRECTIONS.iter() {
        for k in 1..=4isize {
            for sign in [-1isize, 1] {
                let p = four.offset(sign * k * step);
                if board.is_empty(p) && board.on_board(p) && board.threat(p, stone) == Threat::Five
                {
                    return Some(p);
                }
            }
        }
    }
    None
}

/// A five square of `stone` other than `not`.
fn other_five(board: &Board, stone: crate::board::Stone, not: Pos) -> Option<Pos> {
    board
        .cells_with(stone, Threat::Five)
        .into_iter()
        .find(|&p| p != not)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::rules::{PatternTable, Rule};

    fn board(rule: Rule, text: &str) -> Board {
        Board::from_ascii(text, Arc::new(PatternTable::new(rule))).expect("valid board")
    }

    /// Plays `line` from the position and checks the VCF conventions: every attacker move
    /// makes a four or five, every defender move is the forced block, the last move is a five.
    fn check_line(b: &mut Board, line: &[Pos]) {
        let attacker = b.side_to_move();
        for (i, &mv) in line.iter().enumerate() {
            assert!(b.is_empty(mv), "move {i} on an occupied square");
            if i % 2 == 0 {
                assert!(
                    movegen::makes_four(b, mv, b.side_to_move()),
                    "attacker move {i} ({mv}) is not a four"
                );
            } else {
                let fives = b.cells_with(attacker, Threat::Five);
                assert!(
                    fives.contains(&mv) || rules::is_forbidden_move(b, fives[0]),
                    "defender move {i} ({mv}) is not the block"
                );
            }
            if i + 1 == line.len() {
                assert_eq!(b.threat(mv, attacker), Threat::Five, "last move is a five");
            }
            b.make(mv);
        }
        for _ in line {
            b.undo();
        }
    }

    #[test]
    fn finds_a_four_three_then_a_straight_four() {
        // Black: 3,4 is a four (column 3, closed at the top) and a broken three on row 4; after
        // the block at 3,5, 4,4 makes a straight four.
        let mut b = board(
            Rule::Freestyle,
            "
            . . . O . . . . . . O
            . . . X . . . . . . .
            . . . X . . . . . . .
            . . . X . . . . . . .
            . . . . . X X . . . .
            . . . . . . . . . . .
            . . . . . . . . . . .
            O . . . . . . . . . .
            . . . . . . . . . . .
            . . . . . . . . . . .
            O . . . . . . . . . O
            ",
        );
        let before = b.hash();
        match find_vcf(&mut b, 0).outcome {
            VcfOutcome::Win(line) => {
                assert_eq!(b.hash(), before);
                assert_eq!(line.len(), 5, "{line:?}");
                check_line(&mut b, &line);
            }
            other => panic!("expected a win, got {other:?}"),
        }
    }

    #[test]
    fn a_block_that_makes_a_four_must_be_answered_by_a_four() {
        // Black's fours on column 0: 0,3 is blocked at 0,4, which makes white's four on row 4,
        // and black cannot answer 4,4 with a four; 0,4 is blocked at 0,3 and leaves nothing.
        let mut b = board(
            Rule::Freestyle,
            "
            X . . . . . . . .
            X . . . . . . . .
            X . . . . . . . .
            . . . . . . . . .
            . O O O . . . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .
            ",
        );
        let r = find_vcf(&mut b, 0);
        assert_eq!(r.outcome, VcfOutcome::NoWin);
        assert!(r.nodes >= 3, "both fours were tried: {}", r.nodes);
    }

    #[test]
    fn no_fours_no_win() {
        let mut b = board(
            Rule::Freestyle,
            "
            . . . . . . . .
            . . . . . . . .
            . . X X . . . .
            . . . . . . . .
            . . . O O . . .
            . . . . . . . .
            . . . . . . . .
            . . . . . . . .
            ",
        );
        let r = find_vcf(&mut b, 0);
        assert_eq!(r.outcome, VcfOutcome::NoWin);
        assert_eq!(r.nodes, 1);
    }
}
