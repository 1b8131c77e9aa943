//! Transposition table: a fixed-size array of cache-line buckets indexed by the Zobrist key.
//!
//! A bucket is 64 bytes, aligned to a cache line, and holds [`BUCKET_ENTRIES`] entries; a probe
//! or a store touches one line. Each entry is two `AtomicU64` words, `key ^ data` and `data`,
//! written and read with relaxed ordering (the "lockless hashing" trick): a torn write from
//! another thread makes the key check fail, so the table is safe to share between search threads
//! without locks or `unsafe` (the module's one `unsafe` block is [`TranspositionTable::prefetch`],
//! a cache hint that reads nothing). A store replaces the entry of the same position, else an empty
//! one, else the entry worth least: shallow and from an older search (depth minus 4 per
//! search of age). The number of buckets is a power of two chosen from the memory budget.
//!
//! Data word layout (bit 0 = least significant):
//! ```text
//! 0..16  move (padded cell index; 0xFFFF = none)
//! 16..48 score (i32, mate scores stored relative to the node, see `score_to_tt`)
//! 48..56 depth (i8)
//! 56..58 bound (1 upper, 2 lower, 3 exact)
//! 58..63 generation (5 bits)
//! 63     on a principal variation (the node was a PV node, or its entry said so)
//! ```

use std::{
    io::{self, Read, Write},
    sync::atomic::{AtomicU64, Ordering},
};

use crate::{
    board::{Pos, NUM_CELLS},
    score::Score,
};

/// First bytes of a table written by [`TranspositionTable::dump`]: the format and its
/// version.
pub const DUMP_MAGIC: &[u8; 8] = b"WUZITT02";

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
    /// The node was on a principal variation when it was stored (Stockfish's and Rapfi's
    /// "ttPv").
    pub pv: bool,
}

const NO_MOVE: u64 = 0xFFFF;

/// The generation's bits (it counts searches, modulo 32).
const GENERATION_MASK: u64 = 31;

/// Bytes per entry.
pub const ENTRY_BYTES: usize = 16;

/// Entries per bucket (one 64-byte cache line).
pub const BUCKET_ENTRIES: usize = 4;

/// One cache line of entries.
#[repr(align(64))]
struct Bucket([[AtomicU64; 2]; BUCKET_ENTRIES]);

impl Bucket {
    fn empty() -> Bucket {
        Bucket([(); BUCKET_ENTRIES].map(|_| [AtomicU64::new(0), AtomicU64::new(0)]))
    }
}

/// The shared table.
pub struct TranspositionTable {
    buckets: Vec<Bucket>,
    mask: usize,
    generation: AtomicU64,
}

impl TranspositionTable {
    /// A table of at most `bytes` bytes (at least 256 buckets).
    pub fn new(bytes: usize) -> TranspositionTable {
        let wanted = (bytes / (ENTRY_BYTES * BUCKET_ENTRIES)).max(256);
        let mut count = 256usize;
        while count * 2 <= wanted {
            count *= 2;
        }
        TranspositionTable {
            buckets: (0..count).map(|_| Bucket::empty()).collect(),
            mask: count - 1,
            generation: AtomicU64::new(0),
        }
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.buckets.len() * ENTRY_BYTES * BUCKET_ENTRIES
    }

    /// Forgets everything.
    pub fn clear(&self) {
        for bucket in &self.buckets {
            for slot in &bucket.0 {
                slot[0].store(0, Ordering::Relaxed);
                slot[1].store(0, Ordering::Relaxed);
            }
        }
    }

    /// Used entries per thousand, counted in the first 1000 buckets (the whole table when it
    /// is smaller).
    pub fn usage_permille(&self) -> u32 {
        let buckets = &self.buckets[..self.buckets.len().min(1000)];
        let used: usize = buckets
            .iter()
            .map(|b| {
                b.0.iter()
                    .filter(|slot| slot[1].load(Ordering::Relaxed) != 0)
                    .count()
            })
            .sum();
        (used * 1000 / (buckets.len() * BUCKET_ENTRIES)) as u32
    }

    /// Writes the table: [`DUMP_MAGIC`], the number of cells of the board encoding, the
    /// number of buckets and the generation (each a little-endian `u64`), then every entry's
    /// two words. [`TranspositionTable::load`] reads it back.
    pub fn dump(&self, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(DUMP_MAGIC)?;
        for word in [
            NUM_CELLS as u64,
            self.buckets.len() as u64,
            self.generation.load(Ordering::Relaxed),
        ] {
            out.write_all(&word.to_le_bytes())?;
        }
        let mut chunk = Vec::with_capacity(1 << 16);
        for bucket in &self.buckets {
            for slot in &bucket.0 {
                chunk.extend_from_slice(&slot[0].load(Ordering::Relaxed).to_le_bytes());
                chunk.extend_from_slice(&slot[1].load(Ordering::Relaxed).to_le_bytes());
            }
            if chunk.len() >= 1 << 16 {
                out.write_all(&chunk)?;
                chunk.clear();
            }
        }
        out.write_all(&chunk)?;
        out.flush()
    }

    /// Reads a table written by [`TranspositionTable::dump`], of at most `max_bytes`. A file of
    /// another format, board encoding or size limit, or cut short, is an `InvalidData` error;
    /// entries whose move is no cell are dropped, so a damaged file cannot put an impossible
    /// move into a search.
    pub fn load(input: &mut dyn Read, max_bytes: usize) -> io::Result<TranspositionTable> {
        let bad = |why: String| io::Error::new(io::ErrorKind::InvalidData, why);
        let mut magic = [0u8; 8];
        input
            .read_exact(&mut magic)
            .map_err(|_| bad("not a wuzi hash file (too short)".into()))?;
        if &magic != DUMP_MAGIC {
            return Err(bad("not a wuzi hash file (wrong header)".into()));
        }
        let mut word = [0u8; 8];
        let mut header = [0u64; 3];
        for value in &mut header {
            input
                .read_exact(&mut word)
                .map_err(|_| bad("hash file header cut short".into()))?;
            *value = u64::from_le_bytes(word);
        }
        let [cells, count, generation] = header;
        if cells != NUM_CELLS as u64 {
            return Err(bad(format!(
                "hash file of another board encoding ({cells} cells, not {NUM_CELLS})"
            )));
        }
        let bytes = count.saturating_mul((ENTRY_BYTES * BUCKET_ENTRIES) as u64);
        if count < 256 || !count.is_power_of_two() || bytes > max_bytes as u64 {
            return Err(bad(format!(
                "hash file of {count} buckets: not a power of two from 256, or over {max_bytes} bytes"
            )));
        }
        let count = count as usize;
        let mut buckets = Vec::with_capacity(count);
        let mut raw = vec![0u8; ENTRY_BYTES * BUCKET_ENTRIES];
        for _ in 0..count {
            input
                .read_exact(&mut raw)
                .map_err(|_| bad("hash file cut short".into()))?;
            let bucket = Bucket::empty();
            for (i, slot) in bucket.0.iter().enumerate() {
                let at = i * ENTRY_BYTES;
                let mut check = [0u8; 8];
                let mut data = [0u8; 8];
                check.copy_from_slice(&raw[at..at + 8]);
                data.copy_from_slice(&raw[at + 8..at + 16]);
                let (check, data) = (u64::from_le_bytes(check), u64::from_le_bytes(data));
                let mv = data & NO_MOVE;
                if mv != NO_MOVE && mv as usize >= NUM_CELLS {
                    continue;
                }
                slot[0].store(check, Ordering::Relaxed);
                slot[1].store(data, Ordering::Relaxed);
            }
            buckets.push(bucket);
        }
        Ok(TranspositionTable {
            buckets,
            mask: count - 1,
            generation: AtomicU64::new(generation),
        })
    }

    /// Starts a new search: entries from older searches become preferred for replacement.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    fn generation(&self) -> u64 {
        self.generation.load(Ordering::Relaxed) & GENERATION_MASK
    }

    fn bucket(&self, key: u64) -> &Bucket {
        // The low bits pick the bucket; the whole key is checked in the entry.
        &self.buckets[key as usize & self.mask]
    }

    /// Asks the processor to bring `key`'s bucket into the cache, so that a probe soon after
    /// (once the move is made) finds it there. Only a hint: it changes nothing the program can
    /// see.
    #[inline]
    #[allow(unsafe_code)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let bucket: *const Bucket = self.bucket(key);
            // SAFETY: a prefetch never faults and reads or writes nothing the program sees;
            // the address is a live bucket of this table besides. Measured: see the README.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket.cast::<i8>()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The entry stored for `key`, if any.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.bucket(key).0.iter().find_map(|slot| {
            let check = slot[0].load(Ordering::Relaxed);
            let data = slot[1].load(Ordering::Relaxed);
            if check ^ data != key || data == 0 {
                None
            } else {
                decode(data)
            }
        })
    }

    /// Stores an entry: over the entry of the same position (unless that one is from this
    /// search and more than 2 plies deeper), else over an empty entry, else over the entry worth
    /// least (depth minus 4 per search of age).
    pub fn store(
        &self,
        key: u64,
        best: Option<Pos>,
        score: Score,
        depth: i32,
        bound: Bound,
        pv: bool,
    ) {
        let bucket = self.bucket(key);
        let gen = self.generation();
        let mut victim = 0;
        let mut victim_worth = i64::MAX;
        for (i, slot) in bucket.0.iter().enumerate() {
            let data = slot[1].load(Ordering::Relaxed);
            let old_key = slot[0].load(Ordering::Relaxed) ^ data;
            if data == 0 {
                if victim_worth > i64::MIN {
                    victim = i;
                    victim_worth = i64::MIN;
                }
                continue;
            }
            let old_depth = ((data >> 48) as u8 as i8) as i64;
            let old_gen = (data >> 58) & GENERATION_MASK;
            if old_key == key {
                if old_gen == gen && old_depth > depth as i64 + 2 && bound != Bound::Exact {
                    return;
                }
                victim = i;
                break;
            }
            let age = (gen + GENERATION_MASK + 1 - old_gen) & GENERATION_MASK;
            let worth = old_depth - 4 * age as i64;
            if worth < victim_worth {
                victim = i;
                victim_worth = worth;
            }
        }
        let mv = best.map_or(NO_MOVE, |p| p.index() as u64);
        let data = mv
            | ((score as u32 as u64) << 16)
            | ((depth.clamp(-128, 127) as i8 as u8 as u64) << 48)
            | ((bound as u64) << 56)
            | (gen << 58)
            | (u64::from(pv) << 63);
        let slot = &bucket.0[victim];
        slot[0].store(key ^ data, Ordering::Relaxed);
        slot[1].store(data, Ordering::Relaxed);
    }
}

/// Decodes a data word (`None` for an invalid bound).
fn decode(data: u64) -> Option<Entry> {
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
        pv: data >> 63 != 0,
    })
}

impl std::fmt::Debug for TranspositionTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "TranspositionTable({} entries)",
            self.buckets.len() * BUCKET_ENTRIES
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe_round_trip() {
        let tt = TranspositionTable::new(1 << 16);
        let key = 0xDEAD_BEEF_1234_5678;
        tt.store(key, Some(Pos::from_xy(3, 4)), -12345, 7, Bound::Lower, true);
        let e = tt.probe(key).expect("stored");
        assert!(e.pv);
        assert_eq!(e.best, Some(Pos::from_xy(3, 4)));
        assert_eq!(e.score, -12345);
        assert_eq!(e.depth, 7);
        assert_eq!(e.bound, Bound::Lower);
        assert_eq!(tt.probe(key ^ 1 << 40), None, "other key, same bucket");
        tt.store(key, None, 5, -2, Bound::Exact, false);
        let e = tt.probe(key).expect("stored");
        assert_eq!((e.best, e.score, e.depth, e.pv), (None, 5, -2, false));
        // The flag and the generation share the top bits: neither spoils the other, at any
        // generation.
        for _ in 0..40 {
            tt.new_search();
            tt.store(key, None, -7, 3, Bound::Upper, true);
            let e = tt.probe(key).expect("stored");
            assert_eq!(
                (e.score, e.depth, e.bound, e.pv),
                (-7, 3, Bound::Upper, true)
            );
        }
        tt.clear();
        assert_eq!(tt.probe(key), None);
    }

    #[test]
    fn a_bucket_keeps_four_positions_and_replaces_the_least_worth() {
        let tt = TranspositionTable::new(1 << 16);
        // Five keys of one bucket (same low bits), depths 5, 1, 7, 3: all four kept.
        let keys: Vec<u64> = (1..=5u64).map(|k| k << 40).collect();
        for (k, d) in keys.iter().zip([5, 1, 7, 3]) {
            tt.store(*k, None, d, d, Bound::Exact, false);
        }
        for k in &keys[..4] {
            assert!(tt.probe(*k).is_some());
        }
        // A fifth position replaces the shallowest (depth 1).
        tt.store(keys[4], None, 9, 2, Bound::Lower, true);
        assert!(tt.probe(keys[1]).is_none());
        for k in [keys[0], keys[2], keys[3], keys[4]] {
            assert!(tt.probe(k).is_some());
        }
        // After a few searches, old deep entries give way to a new shallow one.
        for _ in 0..3 {
            tt.new_search();
        }
        tt.store(6 << 40, None, 0, 1, Bound::Upper, false);
        assert!(tt.probe(6 << 40).is_some());
        assert!(tt.probe(keys[4]).is_some() || tt.probe(keys[3]).is_some());
    }

    #[test]
    fn dump_and_load_round_trip_and_reject_damage() {
        let tt = TranspositionTable::new(1 << 16);
        assert_eq!(tt.usage_permille(), 0);
        for k in 1..=300u64 {
            tt.store(
                k * 0x9E37_79B9,
                Some(Pos::from_xy(3, 4)),
                k as Score,
                5,
                Bound::Exact,
                k % 2 == 0,
            );
        }
        assert!(tt.usage_permille() > 0);
        let mut file = Vec::new();
        tt.dump(&mut file).expect("dump to memory");
        let back = TranspositionTable::load(&mut file.as_slice(), 1 << 16).expect("load");
        assert_eq!(back.bytes(), tt.bytes());
        for k in 1..=300u64 {
            assert_eq!(back.probe(k * 0x9E37_79B9), tt.probe(k * 0x9E37_79B9));
        }
        assert_eq!(back.usage_permille(), tt.usage_permille());
        // Too big for the limit, cut short, wrong header: errors, never a panic.
        assert!(TranspositionTable::load(&mut file.as_slice(), 1 << 10).is_err());
        assert!(TranspositionTable::load(&mut &file[..file.len() - 1], 1 << 16).is_err());
        assert!(TranspositionTable::load(&mut &b"hello"[..], 1 << 16).is_err());
        let mut other = file.clone();
        other[0] = b'X';
        assert!(TranspositionTable::load(&mut other.as_slice(), 1 << 16).is_err());
        // An entry whose move is no cell is dropped.
        let mut bad_move = file.clone();
        let first_data = 32 + 8;
        let data = u64::from_le_bytes(bad_move[first_data..first_data + 8].try_into().unwrap());
        let damaged = (data & !0xFFFF) | 0xFFFE;
        bad_move[first_data..first_data + 8].copy_from_slice(&damaged.to_le_bytes());
        let back = TranspositionTable::load(&mut bad_move.as_slice(), 1 << 16).expect("load");
        assert!(back.usage_permille() <= tt.usage_permille());
    }

    #[test]
    fn size_is_a_power_of_two_within_budget() {
        let tt = TranspositionTable::new(1_000_000);
        assert!(tt.bytes() <= 1_000_000);
        assert!(tt.bytes() * 2 > 1_000_000);
        assert!(tt.bytes().is_power_of_two());
    }
}
