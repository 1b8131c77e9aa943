//! The textbook search algorithms of the classic comparison, written for clarity rather than
//! strength: minimax, alpha-beta, principal variation search (PVS), move ordering, a hash table,
//! a range limit, and root parallelism. The engine's own search is [`crate::search`]; nothing here
//! is used by it.
//!
//! Every variant searches the same tree, defined once:
//!
//! - A node's moves are the empty squares ([`MoveSet::All`], board order, row by row) or those
//!   within two cells of a stone ([`MoveSet::Near`]: the 5×5 square, the "range limit radius 2";
//!   the centre on an empty board).
//! - Depth `d` means the root's moves and `d − 1` further plies; a position reached after `d`
//!   plies is a leaf and scores [`eval::evaluate`] (negamax: from the side to move's view).
//! - A move that makes a five ends the game: it scores [`win_in`] of its ply and is not expanded
//!   (tested with [`Board::is_winning_move`] before it is made). A full board scores 0.
//! - Every position visited counts as one node: the root, inner nodes, leaves and the positions
//!   after a winning move.
//!
//! Minimax visits the whole tree. Alpha-beta, PVS, ordering and the hash table only skip
//! subtrees that cannot change the root value, so they all return minimax's value (the unit tests
//! check it). The range limit searches a smaller tree; root parallelism searches the same tree as
//! its sequential counterpart and picks the same move.

use std::{
    cmp::Reverse,
    sync::atomic::{AtomicI32, Ordering},
};

use rayon::prelude::*;

use crate::{
    board::{Board, Pos},
    eval, movegen,
    search::{score_from_tt, score_to_tt, win_in, Score, INFINITY},
    tt::Bound,
};

/// Which squares a node may play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveSet {
    /// Every empty square.
    All,
    /// Empty squares with a stone in the 5×5 square around them (the centre on an empty board).
    Near,
}

/// How the moves of a node are ordered and whether a hash table is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The squares searched.
    pub moves: MoveSet,
    /// Sort moves by [`movegen::order_score`] (descending, ties by square) instead of board order.
    pub ordered: bool,
    /// Keep a hash table of searched positions: cut-offs from stored bounds, stored move first.
    pub hashed: bool,
}

impl Options {
    /// Board order over every empty square, no hash table.
    pub const PLAIN: Options = Options {
        moves: MoveSet::All,
        ordered: false,
        hashed: false,
    };
    /// Ordered moves over every empty square, no hash table.
    pub const ORDERED: Options = Options {
        moves: MoveSet::All,
        ordered: true,
        hashed: false,
    };
    /// Ordered moves and a hash table, over every empty square.
    pub const HASHED: Options = Options {
        moves: MoveSet::All,
        ordered: true,
        hashed: true,
    };
    /// Ordered moves and a hash table within the range limit.
    pub const RANGE_HASHED: Options = Options {
        moves: MoveSet::Near,
        ordered: true,
        hashed: true,
    };
}

/// What a root search found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The first root move (in search order) with the best value; `None` on a full board or at
    /// depth 0.
    pub best: Option<Pos>,
    /// The root value for the side to move.
    pub score: Score,
    /// Positions visited.
    pub nodes: u64,
}

/// Minimax (in its negamax form) over `moves`: every node of the tree is visited.
pub fn minimax(board: &mut Board, depth: i32, moves: MoveSet) -> Outcome {
    let mut tree = Tree::new(Options {
        moves,
        ordered: false,
        hashed: false,
    });
    let score = tree.minimax(board, depth, 0);
    tree.outcome(score)
}

/// Alpha-beta (fail-soft negamax) with the given ordering and hash table.
pub fn alpha_beta(board: &mut Board, depth: i32, options: Options) -> Outcome {
    let mut tree = Tree::new(options);
    let score = tree.alpha_beta(board, depth, 0, -INFINITY, INFINITY);
    tree.outcome(score)
}

/// Principal variation search: the first move with the full window, the others with a null
/// window and a re-search when they turn out better.
pub fn pvs(board: &mut Board, depth: i32, options: Options) -> Outcome {
    let mut tree = Tree::new(options);
    let score = tree.pvs(board, depth, 0, -INFINITY, INFINITY);
    tree.outcome(score)
}

/// Alpha-beta with the root moves split over `pool`'s threads (the OpenMP loop of the report, in
/// rayon), no hash table.
///
/// The first root move is searched alone to set alpha; the others run in parallel, each on its
/// own copy of the board, and share the best value so far through an [`AtomicI32`] (the report's
/// critical section around the best move). A move is searched with the window
/// `(alpha − 1, +∞)`, so a move that equals the best value returns it exactly, while a worse
/// move returns at most `alpha − 1`. The result is therefore the same value and the same move
/// (the first of the best in search order) as the sequential [`alpha_beta`], whatever the
/// threads' timing; only the node count varies from run to run.
pub fn parallel_alpha_beta(
    board: &Board,
    depth: i32,
    options: Options,
    pool: &rayon::ThreadPool,
) -> Outcome {
    let options = Options {
        hashed: false,
        ..options
    };
    let mut first_tree = Tree::new(options);
    first_tree.nodes = 1;
    let mut root_board = board.clone();
    let root = first_tree.candidates(&root_board);
    let first = match root.first() {
        Some(&first) if depth > 0 => first,
        _ => return alpha_beta(&mut root_board, depth, options),
    };
    let first_score = first_tree.child(&mut root_board, first, depth, 0, |t, b| {
        -t.alpha_beta(b, depth - 1, 1, -INFINITY, INFINITY)
    });
    let alpha = AtomicI32::new(first_score);
    let rest: Vec<(Score, u64)> = pool.install(|| {
        root[1..]
            .par_iter()
            .map_init(
                || (board.clone(), Tree::new(options)),
                |(b, tree), &mv| {
                    tree.nodes = 0;
                    let bound = alpha.load(Ordering::Relaxed) - 1;
                    let score = tree.child(b, mv, depth, 0, |t, b| {
                        -t.alpha_beta(b, depth - 1, 1, -INFINITY, -bound)
                    });
                    alpha.fetch_max(score, Ordering::Relaxed);
                    (score, tree.nodes)
                },
            )
            .collect()
    });
    let mut best = (first_score, first);
    let mut nodes = first_tree.nodes;
    for (&mv, &(score, n)) in root[1..].iter().zip(&rest) {
        nodes += n;
        if score > best.0 {
            best = (score, mv);
        }
    }
    Outcome {
        best: Some(best.1),
        score: best.0,
        nodes,
    }
}

/// Number of slots of the hash table (a power of two; 24 bytes each).
const HASH_SLOTS: usize = 1 << 20;

/// One stored position.
#[derive(Clone, Copy)]
struct Slot {
    key: u64,
    score: Score,
    depth: i32,
    bound: Bound,
    best: Option<Pos>,
}

/// A fixed-size, always-replace hash table for one search.
///
/// In a fixed-depth search a position can only recur at the same ply (the stone count fixes the
/// ply), so a stored entry always has exactly the remaining depth it is probed with, and its
/// bounds are those of the very same subtree: the cut-offs are exact, not approximations.
struct HashTable {
    slots: Vec<Option<Slot>>,
}

impl HashTable {
    fn new() -> HashTable {
        HashTable {
            slots: vec![None; HASH_SLOTS],
        }
    }

    fn index(key: u64) -> usize {
        (key as usize) & (HASH_SLOTS - 1)
    }

    fn probe(&self, key: u64) -> Option<Slot> {
        self.slots[Self::index(key)].filter(|s| s.key == key)
    }

    fn store(&mut self, slot: Slot) {
        self.slots[Self::index(slot.key)] = Some(slot);
    }
}

/// The state of one search: options, node counter, the root's best move, the hash table.
struct Tree {
    options: Options,
    nodes: u64,
    best: Option<Pos>,
    table: Option<HashTable>,
}

impl Tree {
    fn new(options: Options) -> Tree {
        Tree {
            options,
            nodes: 0,
            best: None,
            table: if options.hashed {
                Some(HashTable::new())
            } else {
                None
            },
        }
    }

    fn outcome(&self, score: Score) -> Outcome {
        Outcome {
            best: self.best,
            score,
            nodes: self.nodes,
        }
    }

    /// The moves of the side to move, in search order.
    fn candidates(&self, board: &Board) -> Vec<Pos> {
        let empty = board.squares().filter(|&p| board.is_empty(p));
        let mut moves: Vec<Pos> = match self.options.moves {
            MoveSet::All => empty.collect(),
            MoveSet::Near => {
                let near: Vec<Pos> = empty.filter(|&p| board.near(p) > 0).collect();
                if near.is_empty() && board.stone_count() == 0 {
                    board
                        .pos(board.width() as i64 / 2, board.height() as i64 / 2)
                        .into_iter()
                        .collect()
                } else {
                    near
                }
            }
        };
        if self.options.ordered {
            moves.sort_by_key(|&p| (Reverse(movegen::order_score(board, p)), p));
        }
        moves
    }

    /// The value of `mv` for the side to move at `ply`: a win if it makes a five (one node, not
    /// expanded), otherwise `search` of the position after it.
    fn child(
        &mut self,
        board: &mut Board,
        mv: Pos,
        depth: i32,
        ply: i32,
        search: impl FnOnce(&mut Tree, &mut Board) -> Score,
    ) -> Score {
        debug_assert!(depth > 0);
        if board.is_winning_move(mv, board.side_to_move()) {
            self.nodes += 1;
            return win_in(ply + 1);
        }
        board.make(mv);
        let score = search(self, board);
        board.undo();
        score
    }

    fn minimax(&mut self, board: &mut Board, depth: i32, ply: i32) -> Score {
        self.nodes += 1;
        if depth == 0 {
            return eval::evaluate(board);
        }
        let mut best = None;
        for mv in self.candidates(board) {
            let score = self.child(board, mv, depth, ply, |t, b| {
                -t.minimax(b, depth - 1, ply + 1)
            });
            if best.map_or(true, |b| score > b) {
                best = Some(score);
                if ply == 0 {
                    self.best = Some(mv);
                }
            }
        }
        best.unwrap_or(0)
    }

    fn alpha_beta(
        &mut self,
        board: &mut Board,
        depth: i32,
        ply: i32,
        mut alpha: Score,
        beta: Score,
    ) -> Score {
        self.nodes += 1;
        if depth == 0 {
            return eval::evaluate(board);
        }
        let key = board.hash();
        let mut hash_move = None;
        if let Some(slot) = self.table.as_ref().and_then(|t| t.probe(key)) {
            hash_move = slot.best;
            if slot.depth == depth && ply > 0 {
                let score = score_from_tt(slot.score, ply);
                let cut = match slot.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if cut {
                    return score;
                }
            }
        }
        let mut moves = self.candidates(board);
        if let Some(at) = hash_move.and_then(|h| moves.iter().position(|&m| m == h)) {
            let mv = moves.remove(at);
            moves.insert(0, mv);
        }
        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        for mv in moves {
            let score = self.child(board, mv, depth, ply, |t, b| {
                -t.alpha_beta(b, depth - 1, ply + 1, -beta, -alpha)
            });
            if score > best {
                best = score;
                best_move = Some(mv);
                alpha = alpha.max(score);
                if alpha >= beta {
                    break;
                }
            }
        }
        if best_move.is_none() {
            return 0;
        }
        if ply == 0 {
            self.best = best_move;
        }
        if let Some(table) = self.table.as_mut() {
            let bound = if best >= beta {
                Bound::Lower
            } else if best > original_alpha {
                Bound::Exact
            } else {
                Bound::Upper
            };
            table.store(Slot {
                key,
                score: score_to_tt(best, ply),
                depth,
                bound,
                best: best_move,
            });
        }
        best
    }

    fn pvs(
        &mut self,
        board: &mut Board,
        depth: i32,
        ply: i32,
        mut alpha: Score,
        beta: Score,
    ) -> Score {
        self.nodes += 1;
        if depth == 0 {
            return eval::evaluate(board);
        }
        let mut best = -INFINITY;
        let mut best_move = None;
        for mv in self.candidates(board) {
            let first = best_move.is_none();
            let score = self.child(board, mv, depth, ply, |t, b| {
                if first {
                    return -t.pvs(b, depth - 1, ply + 1, -beta, -alpha);
                }
                let probe = -t.pvs(b, depth - 1, ply + 1, -alpha - 1, -alpha);
                if probe > alpha && probe < beta {
                    -t.pvs(b, depth - 1, ply + 1, -beta, -alpha)
                } else {
                    probe
                }
            });
            if score > best {
                best = score;
                best_move = Some(mv);
                alpha = alpha.max(score);
                if alpha >= beta {
                    break;
                }
            }
        }
        if best_move.is_none() {
            return 0;
        }
        if ply == 0 {
            self.best = best_move;
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{
        rules::{PatternTable, Rule},
        search::WIN_THRESHOLD,
    };

    fn board(text: &str) -> Board {
        Board::from_ascii(text, Arc::new(PatternTable::new(Rule::Freestyle))).expect("valid board")
    }

    /// White to move, no five reachable within three plies.
    const QUIET: &str = "
        . . . . . . .
        . . . . . . .
        . . X . . . .
        . . . O . . .
        . . . X . . .
        . . . . . . .
        . . . . . . .
        ";
    /// Black to move with an open three: a straight four, then a five (a win in three plies).
    const OPEN_THREE: &str = "
        . . . . . . .
        . . . . . . .
        . X X X . . .
        . . O . . . .
        . . . O . . .
        . . . . O . .
        . . . . . . .
        ";
    /// White to move against black's straight four: lost in two plies.
    const STRAIGHT_FOUR: &str = "
        . . . . . . .
        . X X X X . .
        . . . . . . .
        . . O O . . .
        . . . . . . .
        . . . . . . O
        . . . . . . .
        ";
    /// Stones in a corner of a larger board, so the range limit leaves out most squares.
    const CORNER: &str = "
        . . . . . . . . .
        . X O . . . . . .
        . . X . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        ";

    fn empty_squares(board: &Board) -> u64 {
        board.squares().filter(|&p| board.is_empty(p)).count() as u64
    }

    #[test]
    fn minimax_visits_every_position_of_the_tree() {
        let mut b = board(QUIET);
        let n = empty_squares(&b);
        let before = b.to_ascii();
        assert_eq!(minimax(&mut b, 1, MoveSet::All).nodes, 1 + n);
        assert_eq!(minimax(&mut b, 2, MoveSet::All).nodes, 1 + n + n * (n - 1));
        assert_eq!(
            minimax(&mut b, 3, MoveSet::All).nodes,
            1 + n + n * (n - 1) + n * (n - 1) * (n - 2)
        );
        assert_eq!(b.to_ascii(), before, "the board is restored");
    }

    #[test]
    fn a_five_ends_the_game_in_the_tree() {
        let mut b = board(OPEN_THREE);
        assert_eq!(minimax(&mut b, 3, MoveSet::All).score, win_in(3));
        assert!(minimax(&mut b, 2, MoveSet::All).score < WIN_THRESHOLD);
        let mut b = board(STRAIGHT_FOUR);
        assert_eq!(minimax(&mut b, 2, MoveSet::All).score, -win_in(2));
        assert!(minimax(&mut b, 1, MoveSet::All).score > -WIN_THRESHOLD);
    }

    /// Checks every pruning variant against minimax over `moves`; returns minimax's outcome.
    fn check_same_value(text: &str, depth: i32, moves: MoveSet) -> Outcome {
        let mut b = board(text);
        let reference = minimax(&mut b, depth, moves);
        let plain = Options {
            moves,
            ..Options::PLAIN
        };
        let ordered = Options {
            moves,
            ..Options::ORDERED
        };
        let hashed = Options {
            moves,
            ..Options::HASHED
        };
        for (name, outcome) in [
            ("alpha-beta", alpha_beta(&mut b, depth, plain)),
            ("PVS", pvs(&mut b, depth, plain)),
            ("ordered alpha-beta", alpha_beta(&mut b, depth, ordered)),
            ("ordered PVS", pvs(&mut b, depth, ordered)),
            (
                "hash + ordered alpha-beta",
                alpha_beta(&mut b, depth, hashed),
            ),
            (
                "hash + alpha-beta",
                alpha_beta(
                    &mut b,
                    depth,
                    Options {
                        ordered: false,
                        ..hashed
                    },
                ),
            ),
        ] {
            assert_eq!(
                outcome.score, reference.score,
                "{name}, depth {depth}, {moves:?}:\n{text}"
            );
            // PVS may visit a position twice (its re-searches); alpha-beta visits a subset.
            if !name.contains("PVS") {
                assert!(
                    outcome.nodes <= reference.nodes,
                    "{name} visited more than minimax"
                );
            }
            if name == "alpha-beta" || name == "PVS" {
                // Same order as minimax: the first of the best moves is the same.
                assert_eq!(outcome.best, reference.best, "{name}, depth {depth}");
            }
        }
        assert_eq!(
            board(text).to_ascii(),
            b.to_ascii(),
            "the board is restored"
        );
        reference
    }

    #[test]
    fn pruning_ordering_and_hashing_return_the_minimax_value() {
        for text in [QUIET, OPEN_THREE, STRAIGHT_FOUR, CORNER] {
            for depth in 1..=3 {
                check_same_value(text, depth, MoveSet::All);
            }
        }
    }

    /// A small board where depth 4 and 5 are cheap enough to check against minimax and plain
    /// ordered alpha-beta.
    const SMALL: &str = "
        . . . . . .
        . . . . . .
        . . X O . .
        . . O X . .
        . . . . . .
        . . . . . .
        ";
    /// A 5×5 board with threats on both sides.
    const TINY: &str = "
        . . . . .
        . X O . .
        . X O . .
        . . . . .
        . . . . .
        ";

    #[test]
    fn the_hash_table_cuts_transpositions_and_keeps_the_value() {
        // Transpositions first appear at depth 4 (three plies of the same pair of moves).
        check_same_value(SMALL, 4, MoveSet::All);
        check_same_value(TINY, 4, MoveSet::All);
        for (text, depth) in [
            (SMALL, 5),
            (TINY, 5),
            (QUIET, 4),
            (OPEN_THREE, 4),
            (STRAIGHT_FOUR, 4),
            (CORNER, 4),
        ] {
            for moves in [MoveSet::All, MoveSet::Near] {
                let mut b = board(text);
                let ordered = alpha_beta(
                    &mut b,
                    depth,
                    Options {
                        moves,
                        ..Options::ORDERED
                    },
                );
                let hashed = alpha_beta(
                    &mut b,
                    depth,
                    Options {
                        moves,
                        ..Options::HASHED
                    },
                );
                // Board order makes the stored bounds loose, which tests their use harder (on
                // the smaller boards: board order is slow).
                let unordered = |options: Options| alpha_beta(&mut board(text), depth, options);
                if text != CORNER && (depth == 4 || text == TINY) {
                    assert_eq!(
                        unordered(Options {
                            moves,
                            ordered: false,
                            hashed: true
                        })
                        .score,
                        unordered(Options {
                            moves,
                            ..Options::PLAIN
                        })
                        .score,
                        "hash, board order, depth {depth}, {moves:?}:\n{text}"
                    );
                }
                assert_eq!(
                    (hashed.score, hashed.best),
                    (ordered.score, ordered.best),
                    "depth {depth}, {moves:?}:\n{text}"
                );
                // Forced lines (a four to answer) leave nothing to transpose.
                let quiet = text != STRAIGHT_FOUR && text != OPEN_THREE;
                assert!(
                    hashed.nodes < ordered.nodes || (!quiet && hashed.nodes == ordered.nodes),
                    "no transposition cut: {} vs {} nodes, depth {depth}:\n{text}",
                    hashed.nodes,
                    ordered.nodes
                );
            }
        }
    }

    #[test]
    fn the_range_limit_returns_the_minimax_value_over_the_same_moves() {
        for text in [CORNER, OPEN_THREE, STRAIGHT_FOUR] {
            for depth in 1..=3 {
                let reference = check_same_value(text, depth, MoveSet::Near);
                let mut b = board(text);
                let range = alpha_beta(&mut b, depth, Options::RANGE_HASHED);
                assert_eq!(range.score, reference.score, "depth {depth}:\n{text}");
            }
        }
        let mut b = board(CORNER);
        let near = minimax(&mut b, 2, MoveSet::Near).nodes;
        let all = minimax(&mut b, 2, MoveSet::All).nodes;
        assert!(near * 4 < all, "{near} vs {all}");
    }

    #[test]
    fn the_range_limit_opens_in_the_centre() {
        let mut b = board(
            "
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            ",
        );
        let outcome = alpha_beta(&mut b, 2, Options::RANGE_HASHED);
        assert_eq!(outcome.best, b.pos(3, 3));
        assert_eq!(outcome.nodes, 1 + 1 + 24);
    }

    #[test]
    fn root_parallelism_returns_the_sequential_value_and_move() {
        for threads in [2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a small pool");
            for text in [QUIET, OPEN_THREE, STRAIGHT_FOUR, CORNER] {
                for options in [Options::ORDERED, Options::PLAIN, Options::RANGE_HASHED] {
                    for depth in 1..=3 {
                        let mut b = board(text);
                        let sequential = alpha_beta(
                            &mut b,
                            depth,
                            Options {
                                hashed: false,
                                ..options
                            },
                        );
                        for _ in 0..2 {
                            let parallel = parallel_alpha_beta(&b, depth, options, &pool);
                            assert_eq!(
                                (parallel.score, parallel.best),
                                (sequential.score, sequential.best),
                                "{threads} threads, {options:?}, depth {depth}:\n{text}"
                            );
                        }
                    }
                }
            }
        }
    }
}
