//! The solver's transposition table: exact keys, both bounds, the best column and the work
//! behind each entry.
//!
//! Keys are `current + mask` (see [`super::bits`]), `B = width * (height + 1)` bits. A key is
//! first scrambled by a bijection of the `B`-bit numbers (multiplication by an odd constant
//! modulo `2^B`); the top bits of the result pick the bucket and the rest is stored, so the
//! stored part and the bucket together give the key back and a hit is never a different
//! position. That needs `B - bucket bits <= 40`, which is why a 64-bit board wants at least
//! 2^24 buckets (the table grows to that by itself).
//!
//! A bucket is two entries (16 bytes, one cache line's quarter): the first keeps the entry
//! with more work behind it, the second takes the rest (Tromp's two-level replacement, as in
//! Fhourstones). An entry is one `u64` (bit 0 = least significant):
//!
//! ```text
//! 0..40   scrambled key without its bucket bits
//! 40..47  lower bound + 64          (0: no lower bound)
//! 47..54  63 - upper bound          (0: no upper bound)
//! 54..58  best column + 1           (0: none)
//! 58..64  log2 of the nodes the search of this position took
//! ```
//!
//! An all-zero word therefore reads as "nothing known", which is what a cleared table holds.
//! The table starts at 2^12 buckets (64 KiB) and grows by four each time it has taken 100
//! stores per bucket, up to its maximum. Nearly every probe misses the processor's caches in a
//! big table, and a miss costs more than a node: on Pons' sets a table that fits the cache
//! searches 3× more nodes per second for a few percent more nodes, so an easy position never
//! pays for a big table, and a hard one gets the room it needs. Clearing zeroes only the
//! buckets used since the last clear while they are few, and shrinks back to the start size.

const KEY_BITS: u32 = 40;
const KEY_MASK: u64 = (1 << KEY_BITS) - 1;
const SCRAMBLE: u64 = 0x9E37_79B9_7F4A_7C15;
/// Bounds are stored in 7 bits: scores from -64 to 63.
const SCORE_OFFSET: i32 = 64;
/// Once this many buckets are used (as a share of all: 1/16), clearing fills the whole table.
const TOUCHED_SHARE: usize = 16;

/// What the table knows about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The score is at least this.
    pub lower: i32,
    /// The score is at most this.
    pub upper: i32,
    /// The column that gave the lower bound or the exact score, if any.
    pub best: Option<u32>,
}

/// A transposition table for one board size at a time.
pub struct Table {
    /// Two words per bucket; only the first `2 << bucket_bits` are in use, the rest are zero.
    words: Vec<u64>,
    bucket_bits: u32,
    min_bits: u32,
    max_bits: u32,
    key_bits: u32,
    /// Stores since the last growth or clear.
    puts: u64,
    touched: Vec<u32>,
    overflow: bool,
}

/// The weakest bound a stored entry can hold.
pub const NO_LOWER: i32 = -SCORE_OFFSET;
/// The weakest upper bound a stored entry can hold.
pub const NO_UPPER: i32 = SCORE_OFFSET - 1;
/// A cleared table starts with 2^12 buckets (64 KiB).
pub const MIN_BUCKET_BITS: u32 = 12;
/// The table grows (by 4×) once it has taken this many stores per bucket.
const PUTS_PER_BUCKET: u64 = 100;

impl Table {
    /// An empty table for keys of `key_bits` bits that starts small and grows up to
    /// `2^max_bits` buckets of 16 bytes. The bounds are raised as far as the key size needs
    /// (see the module doc) and lowered to the key size for tiny boards.
    pub fn new(max_bits: u32, key_bits: u32) -> Table {
        let floor = key_bits.saturating_sub(KEY_BITS);
        let max_bits = max_bits.max(floor).min(key_bits).min(31);
        let min_bits = MIN_BUCKET_BITS.max(floor).min(max_bits);
        let mut table = Table {
            words: Vec::new(),
            bucket_bits: min_bits,
            min_bits,
            max_bits,
            key_bits,
            puts: 0,
            touched: Vec::new(),
            overflow: false,
        };
        table.reserve(min_bits);
        table
    }

    /// Makes room for `2^bits` buckets. Written, not calloc'ed: the pages are mapped now rather
    /// than at first use, which would make a search pay a page fault per new entry.
    fn reserve(&mut self, bits: u32) {
        let words = 2usize << bits;
        if self.words.len() < words {
            self.words.reserve_exact(words - self.words.len());
            self.words.resize(words, 0);
        }
    }

    /// Bytes in use.
    pub fn bytes(&self) -> usize {
        16 << self.bucket_bits
    }

    /// The most bytes the table may grow to.
    pub fn max_bytes(&self) -> usize {
        16 << self.max_bits
    }

    /// Key size this table was made for (`width * (height + 1)`).
    pub fn key_bits(&self) -> u32 {
        self.key_bits
    }

    /// Forgets everything and shrinks back to the smallest size (keeping the memory).
    pub fn clear(&mut self) {
        let used = 2usize << self.bucket_bits;
        if self.overflow {
            self.words[..used].iter_mut().for_each(|w| *w = 0);
        } else {
            for &b in &self.touched {
                let i = 2 * b as usize;
                self.words[i] = 0;
                self.words[i + 1] = 0;
            }
        }
        self.touched.clear();
        self.overflow = false;
        self.puts = 0;
        self.bucket_bits = self.min_bits;
    }

    /// Four times the buckets, every entry moved to its new place.
    fn grow(&mut self) {
        let old_bits = self.bucket_bits;
        let new_bits = (old_bits + 2).min(self.max_bits);
        let old_rest = self.key_bits - old_bits;
        let used = 2usize << old_bits;
        let mut entries = Vec::new();
        for (i, w) in self.words[..used].iter_mut().enumerate() {
            if *w != 0 {
                let scrambled = ((i as u64 / 2) << old_rest) | (*w & KEY_MASK & low_bits(old_rest));
                entries.push((scrambled, *w & !KEY_MASK));
                *w = 0;
            }
        }
        self.reserve(new_bits);
        self.bucket_bits = new_bits;
        self.touched.clear();
        self.overflow = true;
        self.puts = 0;
        let rest = self.key_bits - new_bits;
        for (scrambled, data) in entries {
            let bucket = (scrambled >> rest) as usize;
            let word = (scrambled & KEY_MASK & low_bits(rest)) | data;
            let i = 2 * bucket;
            // Entries that met in one bucket before may meet again: keep the first two.
            if self.words[i] == 0 {
                self.words[i] = word;
            } else if self.words[i + 1] == 0 {
                self.words[i + 1] = word;
            }
        }
    }

    #[inline(always)]
    fn locate(&self, key: u64) -> (usize, u64) {
        let scrambled = if self.key_bits >= 64 {
            key.wrapping_mul(SCRAMBLE)
        } else {
            key.wrapping_mul(SCRAMBLE) & ((1u64 << self.key_bits) - 1)
        };
        let rest = self.key_bits - self.bucket_bits;
        let bucket = if self.bucket_bits == 0 {
            0
        } else {
            (scrambled >> rest) as usize
        };
        (bucket, scrambled & KEY_MASK & low_bits(rest))
    }

    /// The entry of `key`, if stored.
    #[inline]
    pub fn get(&self, key: u64) -> Option<Entry> {
        let (bucket, check) = self.locate(key);
        let i = 2 * bucket;
        for &word in &self.words[i..i + 2] {
            if word != 0 && word & KEY_MASK == check {
                return Some(decode(word));
            }
        }
        None
    }

    /// Records bounds for `key`, merged with what is already known about it. `work`: log2 of the
    /// nodes searched for it.
    #[inline]
    pub fn put(&mut self, key: u64, lower: i32, upper: i32, best: Option<u32>, work: u32) {
        self.puts += 1;
        if self.bucket_bits < self.max_bits && self.puts > PUTS_PER_BUCKET << self.bucket_bits {
            self.grow();
        }
        let (bucket, check) = self.locate(key);
        let i = 2 * bucket;
        let (a, b) = (self.words[i], self.words[i + 1]);
        let (mut lower, mut upper, mut best, mut work) = (lower, upper, best, work.min(63));
        let mut merge = |old: u64| {
            let e = decode(old);
            lower = lower.max(e.lower);
            upper = upper.min(e.upper);
            best = best.or(e.best);
            work = work.max((old >> 58) as u32);
        };
        let same_a = a != 0 && a & KEY_MASK == check;
        let same_b = b != 0 && b & KEY_MASK == check;
        if same_a {
            merge(a);
        } else if same_b {
            merge(b);
        }
        let word = encode(check, lower, upper, best, work);
        if same_a {
            self.words[i] = word;
        } else if same_b {
            // Promote it to the first slot if it now has more work than the first.
            if work >= (a >> 58) as u32 {
                self.words[i] = word;
                self.words[i + 1] = a;
            } else {
                self.words[i + 1] = word;
            }
        } else {
            if a == 0 && b == 0 && !self.overflow {
                if self.touched.len() * TOUCHED_SHARE < (1usize << self.bucket_bits) {
                    self.touched.push(bucket as u32);
                } else {
                    self.overflow = true;
                }
            }
            if a == 0 || work >= (a >> 58) as u32 {
                self.words[i] = word;
                self.words[i + 1] = a;
            } else {
                self.words[i + 1] = word;
            }
        }
    }
}

#[inline(always)]
fn low_bits(n: u32) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

#[inline(always)]
fn encode(check: u64, lower: i32, upper: i32, best: Option<u32>, work: u32) -> u64 {
    let lower = (lower.max(NO_LOWER) + SCORE_OFFSET) as u64;
    let upper = (SCORE_OFFSET - 1 - upper.min(NO_UPPER)) as u64;
    let best = best.map_or(0, |c| c as u64 + 1);
    check | lower << 40 | upper << 47 | best << 54 | (work as u64) << 58
}

#[inline(always)]
fn decode(word: u64) -> Entry {
    let lower = ((word >> 40) & 0x7F) as i32 - SCORE_OFFSET;
    let upper = SCORE_OFFSET - 1 - ((word >> 47) & 0x7F) as i32;
    let best = match (word >> 54) & 0xF {
        0 => None,
        c => Some(c as u32 - 1),
    };
    Entry { lower, upper, best }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_merge_and_survive_a_clear_only_when_untouched() {
        let mut t = Table::new(10, 49);
        assert_eq!(t.get(12345), None);
        t.put(12345, 3, NO_UPPER, Some(2), 5);
        t.put(12345, NO_LOWER, 7, None, 3);
        assert_eq!(
            t.get(12345),
            Some(Entry {
                lower: 3,
                upper: 7,
                best: Some(2)
            })
        );
        t.put(0, -21, -21, None, 0);
        assert_eq!(t.get(0).map(|e| e.lower), Some(-21));
        t.clear();
        assert_eq!(t.get(12345), None);
        assert_eq!(t.get(0), None);
    }

    #[test]
    fn keys_never_alias() {
        // A tiny table: every key collides with many others, yet each reads back only its own.
        let mut t = Table::new(2, 49);
        for k in 0..64u64 {
            t.put(k * 977, k as i32 % 20, NO_UPPER, None, k as u32 % 7);
        }
        for k in 0..64u64 {
            if let Some(e) = t.get(k * 977) {
                assert_eq!(e.lower, k as i32 % 20);
            }
        }
        // 64-bit keys force at least 2^24 buckets.
        assert!(Table::new(4, 64).bytes() >= 16 << 24);
    }

    #[test]
    fn growing_keeps_the_entries() {
        let mut t = Table::new(20, 49);
        let start = t.bytes();
        let keys: Vec<u64> = (1..2000u64)
            .map(|k| k.wrapping_mul(0x1234_5678_9ABC) >> 15)
            .collect();
        for (i, &k) in keys.iter().enumerate() {
            t.put(k, (i % 40) as i32 - 20, NO_UPPER, Some((i % 7) as u32), 1);
        }
        for _ in 0..(PUTS_PER_BUCKET << MIN_BUCKET_BITS) {
            t.put(keys[0], -20, NO_UPPER, Some(0), 1);
        }
        assert!(t.bytes() > start, "grown");
        let kept = keys
            .iter()
            .enumerate()
            .filter(|&(i, &k)| t.get(k).map(|e| e.lower) == Some((i % 40) as i32 - 20))
            .count();
        assert!(kept > 1900, "{kept} of 1999 kept");
        assert!(keys
            .iter()
            .all(|&k| t.get(k).map_or(true, |e| e.upper == NO_UPPER)));
        t.clear();
        assert_eq!(t.bytes(), start);
        assert!(t.words.iter().all(|&w| w == 0));
    }

    #[test]
    fn full_clear_after_many_stores() {
        let mut t = Table::new(4, 20);
        assert_eq!(t.bytes(), 16 << 4);
        for k in 1..2000u64 {
            t.put(k, 1, 1, None, 1);
        }
        t.clear();
        assert!(t.words.iter().all(|&w| w == 0));
    }
}
