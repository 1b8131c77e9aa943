//! The 7×6 opening book: exact scores of the early positions a perfect player meets, made by
//! our own solver (`pbrain-wuzi connect4 book`) and embedded in the binary.
//!
//! Which positions: the book is the union of two trees, one for each side played perfectly.
//! In a tree, at a position where the perfect side is to move only its chosen move is followed
//! ([`choose`]: best score, then nearest the centre, then the smaller key, a rule that picks
//! mirrored moves in mirrored positions); where the other side is to move every move is
//! followed. Every position of a tree with fewer than `max_ply` discs is stored with the
//! scores of all its moves, so a player (or a hint) that follows the book finds every move's
//! score in it, up to `max_ply` discs; except the other side's positions of `max_ply - 1`
//! discs, which are stored with their own score only: their moves lead to positions of the
//! perfect side whose moves lie beyond the book anyway, and leaving them out divides the cost
//! of a level by seven (a level now serves one side: odd `max_ply` the first player's last
//! book move, even the second's).
//!
//! File layout (little-endian):
//!
//! ```text
//! 0..8    b"C4BOOK1\0"
//! 8       width      9   height     10  max_ply    11  0
//! 12..16  entry count
//! 16..    entries, sorted: (canonical key << 8) | score as u8, one u64 each
//! ```
//!
//! The canonical key is the smaller of the position's key and its mirror image's, so a book
//! position answers for its mirror image too.

use std::{
    collections::{HashMap, HashSet},
    fmt::Write as _,
    time::Instant,
};

use super::{
    bits::{self, Fixed, Geometry},
    solver::{centre_order, Limits, Mode, Node, Solver},
    Position,
};

const MAGIC: &[u8; 8] = b"C4BOOK1\0";
const HEADER_BYTES: usize = 16;

static BOOK_7X6: Book = Book {
    bytes: include_bytes!("book-7x6.bin"),
};

/// An opening book over the bytes of a book file.
#[derive(Clone, Copy, Debug)]
pub struct Book {
    bytes: &'static [u8],
}

impl Book {
    /// The embedded book of a `width`×`height` board, if there is one (7×6).
    pub fn embedded(width: usize, height: usize) -> Option<&'static Book> {
        if (width, height) == (7, 6) && !BOOK_7X6.is_empty() {
            Some(&BOOK_7X6)
        } else {
            None
        }
    }

    /// Positions held.
    pub fn len(&self) -> usize {
        if self.bytes.len() < HEADER_BYTES || &self.bytes[..8] != MAGIC {
            return 0;
        }
        (self.bytes.len() - HEADER_BYTES) / 8
    }

    /// True if the book holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes.len()
    }

    /// The deepest positions held, in discs.
    pub fn max_ply(&self) -> u32 {
        if self.is_empty() {
            0
        } else {
            self.bytes[10] as u32
        }
    }

    fn entry(&self, i: usize) -> u64 {
        let at = HEADER_BYTES + 8 * i;
        let mut word = [0u8; 8];
        word.copy_from_slice(&self.bytes[at..at + 8]);
        u64::from_le_bytes(word)
    }

    /// The score of `node` for the side to move, if the book holds it.
    #[inline]
    pub(crate) fn get<G: Geometry>(&self, g: G, node: Node) -> Option<i32> {
        if node.moves > self.max_ply() {
            return None;
        }
        let key = canonical(g, node.key());
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            let entry = self.entry(mid);
            match (entry >> 8).cmp(&key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(entry as u8 as i8 as i32),
            }
        }
        None
    }

    /// The score of `pos` (7×6) for the side to move, if the book holds it.
    pub fn score(&self, pos: &Position) -> Option<i32> {
        if (pos.width(), pos.height()) != (self.bytes[8] as usize, self.bytes[9] as usize) {
            return None;
        }
        self.get(Fixed::<7, 6>, Node::of(pos))
    }

    /// The score of each column of `pos` (`None` if full or not in the book).
    pub fn move_scores(&self, pos: &Position) -> Vec<Option<i32>> {
        let g = Fixed::<7, 6>;
        let node = Node::of(pos);
        (0..pos.width())
            .map(|col| {
                if !pos.can_play(col) {
                    None
                } else if node.wins_with(g, col as u32) {
                    Some(super::solver::win_now_score(g.cells(), node.moves))
                } else {
                    let child = node.play_column(g, col as u32);
                    self.get(g, child).map(|s| -s)
                }
            })
            .collect()
    }

    fn len_checked(bytes: &[u8]) -> bool {
        bytes.len() >= HEADER_BYTES && &bytes[..8] == MAGIC && (bytes.len() - HEADER_BYTES) % 8 == 0
    }
}

/// The smaller of a key and its mirror image's.
fn canonical<G: Geometry>(g: G, key: u64) -> u64 {
    key.min(bits::mirror(g, key))
}

/// The book's choice among `scores` (per column; `None` for full columns) in `pos`: the best
/// score, then the column nearest the centre, then the child with the smaller canonical key,
/// so mirrored positions get mirrored choices.
pub fn choose(pos: &Position, scores: &[Option<i32>]) -> Option<usize> {
    let best = scores.iter().flatten().max()?;
    let width = pos.width() as i32;
    let node = Node::of(pos);
    super::bits::with_geometry!(pos.width(), pos.height(), |g| {
        (0..pos.width())
            .filter(|&c| scores[c] == Some(*best))
            .min_by_key(|&c| {
                let distance = (2 * c as i32 - (width - 1)).abs();
                let child = node.play_column(g, c as u32);
                (distance, canonical(g, child.key()))
            })
    })
}

/// Progress of [`generate`]: one line per solved position is too many; one per tree node
/// with children solved.
pub type Progress<'a> = &'a mut dyn FnMut(&str);

/// The scores of a book file (canonical key → score); empty if `bytes` is no book of 7×6.
pub fn scores_of(bytes: &[u8]) -> HashMap<u64, i8> {
    let mut scores = HashMap::new();
    if Book::len_checked(bytes) && bytes[8] == 7 && bytes[9] == 6 {
        for chunk in bytes[HEADER_BYTES..].chunks_exact(8) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            let e = u64::from_le_bytes(word);
            scores.insert(e >> 8, e as u8 as i8);
        }
    }
    scores
}

/// Builds the book of `max_ply` discs for 7×6 with `solver`, reporting to `progress`; returns
/// the file's bytes. `known`: scores already solved (from an earlier, shallower book), which
/// are not solved again.
pub fn generate(
    solver: &mut Solver,
    max_ply: u32,
    known: HashMap<u64, i8>,
    progress: Progress<'_>,
) -> Vec<u8> {
    let g = Fixed::<7, 6>;
    let mut scores = known;
    let mut expanded: HashSet<(u64, u8)> = HashSet::new();
    let start = Instant::now();
    let mut stack: Vec<(Position, crate::connect4::Player)> = Vec::new();
    let empty = Position::new(7, 6).expect("7×6 is a supported size");
    for perfect in [
        crate::connect4::Player::First,
        crate::connect4::Player::Second,
    ] {
        stack.push((empty.clone(), perfect));
    }
    solver.set_book(false);
    while let Some((pos, perfect)) = stack.pop() {
        let moves = pos.moves_played() as u32;
        if moves >= max_ply || pos.outcome() != super::Outcome::Ongoing {
            continue;
        }
        // The other side's moves one disc short of the horizon lead to positions the perfect
        // side would need the book's next level for: their scores are solved during play.
        if pos.side_to_move() != perfect && moves + 1 == max_ply {
            continue;
        }
        let node = Node::of(&pos);
        let key = canonical(g, node.key());
        if !expanded.insert((key, perfect as u8)) {
            continue;
        }
        let mut child_scores = vec![None; 7];
        for col in centre_order(7) {
            let col = col as usize;
            if !pos.can_play(col) {
                continue;
            }
            let mut child = pos.clone();
            child.play(col).expect("a playable column");
            let child_key = canonical(g, Node::of(&child).key());
            let score = match scores.get(&child_key) {
                Some(&s) => s as i32,
                None => {
                    let s = solver
                        .solve(&child, Mode::Strong, Limits::none())
                        .expect("no limits");
                    scores.insert(child_key, s as i8);
                    s
                }
            };
            child_scores[col] = Some(-score);
        }
        let best = child_scores.iter().flatten().max().copied();
        if let Some(best) = best {
            scores.insert(key, best as i8);
        }
        let mut line = String::new();
        let _ = write!(
            line,
            "{:>8.1}s {:>6} scored  {:<10} {}",
            start.elapsed().as_secs_f64(),
            scores.len(),
            pos.to_moves(),
            child_scores
                .iter()
                .map(|s| s.map_or("-".to_string(), |s| s.to_string()))
                .collect::<Vec<_>>()
                .join(" ")
        );
        progress(&line);
        if pos.side_to_move() == perfect {
            if let Some(col) = choose(&pos, &child_scores) {
                let mut next = pos.clone();
                next.play(col).expect("a playable column");
                stack.push((next, perfect));
            }
        } else {
            for col in (0..7).rev() {
                if child_scores[col].is_some() {
                    let mut next = pos.clone();
                    next.play(col).expect("a playable column");
                    stack.push((next, perfect));
                }
            }
        }
    }
    solver.set_book(true);
    encode(7, 6, max_ply, &scores)
}

/// The file bytes of a book of `scores` (canonical key → score).
pub fn encode(width: u8, height: u8, max_ply: u32, scores: &HashMap<u64, i8>) -> Vec<u8> {
    let mut entries: Vec<u64> = scores
        .iter()
        .map(|(&k, &s)| (k << 8) | s as u8 as u64)
        .collect();
    entries.sort_unstable();
    let mut bytes = Vec::with_capacity(HEADER_BYTES + 8 * entries.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&[width, height, max_ply as u8, 0]);
    bytes.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    for e in entries {
        bytes.extend_from_slice(&e.to_le_bytes());
    }
    debug_assert!(Book::len_checked(&bytes));
    bytes
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::connect4::{player, Player, Verdict};

    fn book() -> &'static Book {
        Book::embedded(7, 6).expect("the 7×6 book is embedded")
    }

    #[test]
    fn the_empty_board_is_a_first_player_win_with_the_centre() {
        let empty = Position::new(7, 6).expect("7×6");
        assert_eq!(book().score(&empty), Some(1));
        let scores = book().move_scores(&empty);
        assert_eq!(
            scores,
            vec![
                Some(-2),
                Some(-1),
                Some(0),
                Some(1),
                Some(0),
                Some(-1),
                Some(-2)
            ]
        );
        assert_eq!(choose(&empty, &scores), Some(3));
        let start = Instant::now();
        let stop = std::sync::atomic::AtomicBool::new(false);
        let choice = player::Computer::new()
            .best_move(&empty, player::MAX_LEVEL, Duration::from_secs(10), &stop)
            .expect("game on");
        assert!(start.elapsed() < Duration::from_millis(50));
        assert_eq!(choice.column, 3);
        assert_eq!(choice.verdict, Verdict::Win(Some(21)));
        assert_eq!(choice.source, player::Source::Book);
        let mut solver = Solver::new(12);
        assert_eq!(solver.solve(&empty, Mode::Strong, Limits::none()), Some(1));
        assert_eq!(solver.nodes(), 0, "answered from the book");
    }

    /// Walks both trees of the book: every position has all its moves' scores, and its own
    /// score is the best of them.
    fn walk(pos: &Position, perfect: Player, max_ply: u32, seen: &mut usize) {
        let moves = pos.moves_played() as u32;
        if moves >= max_ply || pos.outcome() != crate::connect4::Outcome::Ongoing {
            return;
        }
        if pos.side_to_move() != perfect && moves + 1 == max_ply {
            assert!(book().score(pos).is_some(), "{pos:?}");
            return;
        }
        *seen += 1;
        let scores = book().move_scores(pos);
        for (c, score) in scores.iter().enumerate() {
            assert_eq!(score.is_some(), pos.can_play(c), "{pos:?} column {c}");
        }
        let best = scores.iter().flatten().max().copied();
        assert_eq!(book().score(pos), best, "{pos:?}");
        let next: Vec<usize> = if pos.side_to_move() == perfect {
            choose(pos, &scores).into_iter().collect()
        } else {
            pos.legal_columns()
        };
        for c in next {
            let mut child = pos.clone();
            child.play(c).expect("legal");
            walk(&child, perfect, max_ply, seen);
        }
    }

    #[test]
    fn both_trees_are_complete_and_consistent() {
        let empty = Position::new(7, 6).expect("7×6");
        let mut seen = 0;
        for perfect in [Player::First, Player::Second] {
            walk(&empty, perfect, book().max_ply(), &mut seen);
        }
        assert!(seen > 20, "{seen} positions walked");
        // A mirrored opening finds its mirror image's scores.
        let a = Position::from_moves(7, 6, "43").expect("legal");
        let b = Position::from_moves(7, 6, "45").expect("legal");
        let mut mirrored = book().move_scores(&b);
        mirrored.reverse();
        assert_eq!(book().move_scores(&a), mirrored);
    }
}
