//! Transposition table: a fixed-size array of entries indexed by the Zobrist key.
//!
//! Each entry is two `AtomicU64` words, `key ^ data` and `data`, written and read with relaxed
//! ordering (the "lockless hashing" trick): a torn write from another thread makes the key check
//! fail, so the table is safe to share between search threads without locks or `unsafe`.
//! The size is a power of two chosen from the memory budget.
//!
//! Data word layout (bit 0 = least significant):
//! ```text
//! 0..16  move (padded cell index; 0xFFFF = none)
//! 16..48 score (i32, mate scores stored relative to the node, see `score_to_tt`)
//! 48..56 depth (i8)
//! 56..58 bound (1 upper, 2 lower, 3 exact)
//! 58..64 generation (6 bits)
//! ```

use std::sync::atomic::{AtomicU64, Ordering};

use crate::{board::Pos, search::Score};

/// Kind of bound a stored score is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true score is at most the stored one (fail low).
    Upper = 1,
    /// The true score is at least the stored one (fail high).
    Lower = 2,
    /// The stored score is exact.
    Exact = 3,
}

/// A decoded entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Best or refuting move found.
    pub best: Option<Pos>,
    /// Score as stored (convert with [`score_from_tt`]).
    pub score: Score,
    /// Remaining depth the score was searched to.
    pub depth: i32,
    /// Bound kind.
    pub bound: Bound,
}

const NO_MOVE: u64 = 0xFFFF;
/// Bytes per entry.
pub const ENTRY_BYTES: usize = 16;

/// The shared table.
pub struct TranspositionTable {
    slots: Vec<[AtomicU64; 2]>,
    mask: usize,
    generation: AtomicU64,
}

impl TranspositionTable {
    /// A table of at most `bytes` bytes (at least 1024 entries).
    pub fn new(bytes: usize) -> TranspositionTable {
        let wanted = (bytes / ENTRY_BYTES).max(1024);
        let mut entries = 1024usize;
        while entries * 2 <= wanted {
            entries *= 2;
        }
        let slots = (0..entries)
            .map(|_| [AtomicU64::new(0), AtomicU64::new(0)])
            .collect();
        TranspositionTable {
            slots,
            mask: entries - 1,
            generation: AtomicU64::new(0),
        }
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.slots.len() * ENTRY_BYTES
    }

    /// Forgets everything.
    pub fn clear(&self) {
        for slot in &self.slots {
            slot[0].store(0, Ordering::Relaxed);
            slot[1].store(0, Ordering::Relaxed);
        }
    }

    /// Starts a new search: entries from older searches become preferred for replacement.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    fn generation(&self) -> u64 {
        self.generation.load(Ordering::Relaxed) & 63
    }

    /// The entry stored for `key`, if any.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let slot = &self.slots[key as usize & self.mask];
        let check = slot[0].load(Ordering::Relaxed);
        let data = slot[1].load(Ordering::Relaxed);
        if check ^ data != key || data == 0 {
            return None;
        }
        let mv = data & 0xFFFF;
        let bound = match (data >> 56) & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            3 => Bound::Exact,
            _ => return None,
        };
        Some(Entry {
            best: if mv == NO_MOVE {
                None
            } else {
                Some(Pos::from_index(mv as usize))
            },
            score: (data >> 16) as u32 as i32,
            depth: ((data >> 48) as u8 as i8) as i32,
            bound,
        })
    }

    /// Stores an entry, replacing the slot's entry unless that one is from the current search,
    /// for the same position or another, and deeper.
    pub fn store(&self, key: u64, best: Option<Pos>, score: Score, depth: i32, bound: Bound) {
        let slot = &self.slots[key as usize & self.mask];
        let gen = self.generation();
        let old_data = slot[1].load(Ordering::Relaxed);
        let old_key = slot[0].load(Ordering::Relaxed) ^ old_data;
        if old_data != 0 && (old_data >> 58) == gen {
            let old_depth = ((old_data >> 48) as u8 as i8) as i32;
            if old_depth > depth + 2 && old_key != key {
                return;
            }
        }
        let mv = best.map_or(NO_MOVE, |p| p.index() as u64);
        let data = mv
            | ((score as u32 as u64) << 16)
            | ((depth.clamp(-128, 127) as i8 as u8 as u64) << 48)
            | ((bound as u64) << 56)
            | (gen << 58);
        slot[0].store(key ^ data, Ordering::Relaxed);
        slot[1].store(data, Ordering::Relaxed);
    }
}

impl std::fmt::Debug for TranspositionTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TranspositionTable({} entries)", self.slots.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe_round_trip() {
        let tt = TranspositionTable::new(1 << 16);
        let key = 0xDEAD_BEEF_1234_5678;
        tt.store(key, Some(Pos::from_xy(3, 4)), -12345, 7, Bound::Lower);
        let e = tt.probe(key).expect("stored");
        assert_eq!(e.best, Some(Pos::from_xy(3, 4)));
        assert_eq!(e.score, -12345);
        assert_eq!(e.depth, 7);
        assert_eq!(e.bound, Bound::Lower);
        assert_eq!(tt.probe(key ^ 1 << 40), None, "other key, same slot");
        tt.store(key, None, 5, -2, Bound::Exact);
        let e = tt.probe(key).expect("stored");
        assert_eq!((e.best, e.score, e.depth), (None, 5, -2));
        tt.clear();
        assert_eq!(tt.probe(key), None);
    }

    #[test]
    fn size_is_a_power_of_two_within_budget() {
        let tt = TranspositionTable::new(1_000_000);
        assert!(tt.bytes() <= 1_000_000);
        assert!(tt.bytes() * 2 > 1_000_000);
        assert!(tt.bytes().is_power_of_two());
    }
}
