//! `pbrain-wuzi bench`: a fixed set of positions under every rule, on 15×15 and 20×20, searched
//! to a fixed depth on one thread with a fresh transposition table of fixed size each time.
//!
//! The total node count is the engine's functional signature: it is the same on every run and
//! every machine, and a commit that changes it ends its message with `Bench: <nodes>`.

use std::{io::Write, sync::Arc, time::Instant};

use crate::{
    board::{Board, Pos},
    rules::{PatternTable, Rule},
    search::{self, Limits, Searcher},
    tt::TranspositionTable,
};

/// Depth used when none is given: deep enough that nodes six and seven plies from their leaves
/// occur (the singular extension starts at 6; at depth 6 the signature could not see it), and
/// still under a second.
pub const DEFAULT_DEPTH: i32 = 8;
/// Transposition table size for every bench position (fixed: the size changes node counts).
pub const BENCH_TT_BYTES: usize = 16 << 20;

/// One bench position: rule, board size, and the moves from an empty board (black first).
#[derive(Clone, Copy, Debug)]
pub struct BenchPosition {
    /// Game rule.
    pub rule: Rule,
    /// Board width and height.
    pub size: usize,
    /// Moves as `x,y` pairs separated by spaces, black first, colours alternating.
    pub moves: &'static str,
}

/// The bench positions.
pub const POSITIONS: [BenchPosition; 10] = [
    BenchPosition {
        rule: Rule::Freestyle,
        size: 15,
        moves: "7,7 8,8 8,7 6,7 7,8 7,6",
    },
    BenchPosition {
        rule: Rule::Freestyle,
        size: 15,
        moves: "7,7 7,8 8,6 6,8 9,5 10,4 8,8 9,9 6,6",
    },
    BenchPosition {
        rule: Rule::Freestyle,
        size: 20,
        moves: "10,10 11,11 10,11 10,12 9,12 11,10",
    },
    BenchPosition {
        rule: Rule::Freestyle,
        size: 20,
        moves: "3,3 4,4 3,4 5,5 16,16 3,5 6,6 2,2",
    },
    BenchPosition {
        rule: Rule::Standard,
        size: 15,
        moves: "7,7 7,8 8,7 6,7 8,8 8,6 9,9",
    },
    BenchPosition {
        rule: Rule::Standard,
        size: 20,
        moves: "9,9 10,10 9,10 9,11 8,11 10,9",
    },
    BenchPosition {
        rule: Rule::Renju,
        size: 15,
        moves: "7,7 8,6 8,8 6,8 7,9 7,8 9,7",
    },
    BenchPosition {
        rule: Rule::Renju,
        size: 15,
        moves: "7,7 7,8 8,6 8,8 7,9 8,5 8,10 8,11",
    },
    BenchPosition {
        rule: Rule::CaroOverline,
        size: 15,
        moves: "7,7 6,7 8,8 6,6 6,8 9,9 5,7",
    },
    BenchPosition {
        rule: Rule::Caro,
        size: 15,
        moves: "7,7 8,7 7,8 7,6 6,9 5,10 8,8",
    },
];

impl BenchPosition {
    /// The position as a board, or `None` if a move is off the board or repeated.
    pub fn board(&self, table: Arc<PatternTable>) -> Option<Board> {
        let mut board = Board::new(self.size, self.size, table)?;
        for token in self.moves.split_whitespace() {
            let mut parts = token.split(',');
            let x: i64 = parts.next()?.parse().ok()?;
            let y: i64 = parts.next()?.parse().ok()?;
            let p: Pos = board.pos(x, y)?;
            if !board.is_empty(p) {
                return None;
            }
            board.make(p);
        }
        Some(board)
    }
}

/// Totals of a bench run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchTotals {
    /// Nodes over all positions (the signature).
    pub nodes: u64,
    /// Nodes per second over the whole run.
    pub nps: u64,
}

/// Runs the bench to `depth` on one thread, writing one line per position and the total line
/// to `out`.
pub fn run(depth: i32, out: &mut dyn Write) -> std::io::Result<BenchTotals> {
    run_with_threads(depth, 1, out)
}

/// [`run`] with `threads` search threads. Only one thread gives the deterministic signature;
/// more threads measure the parallel speed-up (time to the same depth).
pub fn run_with_threads(
    depth: i32,
    threads: usize,
    out: &mut dyn Write,
) -> std::io::Result<BenchTotals> {
    let pool = if threads > 1 {
        match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
            Ok(pool) => Some(pool),
            Err(e) => {
                writeln!(out, "cannot start {threads} threads: {e}")?;
                None
            }
        }
    } else {
        None
    };
    let mut searching = std::time::Duration::ZERO;
    let mut total = 0u64;
    for (i, position) in POSITIONS.iter().enumerate() {
        let table = Arc::new(PatternTable::new(position.rule));
        let mut board = match position.board(table) {
            Some(b) => b,
            None => {
                writeln!(out, "position {}: invalid bench position", i + 1)?;
                continue;
            }
        };
        let tt = TranspositionTable::new(BENCH_TT_BYTES);
        let never = || false;
        let mut searcher = Searcher::new(&tt, Limits::depth(depth), &never);
        if let Some(pool) = pool.as_ref() {
            searcher = searcher.with_pool(pool);
        }
        let start = Instant::now();
        let r = searcher.think(&mut board, &mut |_| {});
        searching += start.elapsed();
        total += r.nodes;
        let best = r.best.map_or_else(|| "none".to_string(), |p| p.to_string());
        writeln!(
            out,
            "position {:2}: {:9} {}x{} best {:5} {:12} depth {} nodes {} time {}ms",
            i + 1,
            position.rule.name(),
            position.size,
            position.size,
            best,
            search::describe_score(r.score),
            r.depth,
            r.nodes,
            r.elapsed.as_millis()
        )?;
    }
    // Nodes per second over the searches alone (table building and set-up excluded).
    let us = searching.as_micros().max(1) as u64;
    let nps = total * 1_000_000 / us;
    writeln!(out, "{total} nodes {nps} nps")?;
    Ok(BenchTotals { nodes: total, nps })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bench_position_is_valid() {
        for p in POSITIONS {
            assert!(
                p.board(Arc::new(PatternTable::new(p.rule))).is_some(),
                "{p:?}"
            );
        }
    }

    #[test]
    fn bench_is_deterministic_at_low_depth() {
        let mut a = Vec::new();
        let mut b = Vec::new();
        let ta = run(3, &mut a).expect("in-memory write");
        let tb = run(3, &mut b).expect("in-memory write");
        assert_eq!(ta.nodes, tb.nodes);
        let lines = |v: &[u8]| {
            String::from_utf8_lossy(v)
                .lines()
                .filter(|l| l.starts_with("position"))
                .map(|l| l.split(" time ").next().unwrap_or(l).to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(lines(&a), lines(&b));
        assert!(ta.nodes > 0);
    }
}
