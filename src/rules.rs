//! Everything that differs between the game rules, and nothing else.
//!
//! wuzi plays four rule families (protocol.md §4): freestyle (five or more wins), standard /
//! exact five, renju (black may not make double-three, double-four or overline; white's overline
//! wins) and caro (an exact five wins only if not blocked by the opponent at both ends; Piskvork's
//! rule 8 also lets overlines win, rule 9 does not).
//!
//! The rules reach the rest of the engine in three ways, all decided here:
//! 1. [`PatternTable`]: for every 11-cell line window around an empty cell (5 cells each side),
//!    the [`Pattern`] that a stone of each colour would make there in that direction. The board
//!    keeps these up to date on make/undo; everyone else reads classified patterns.
//! 2. [`PatternTable::combine`]: the four directions of a cell folded into one [`Threat`] class and
//!    an integer potential value per colour (this is where renju's forbidden shapes show up).
//! 3. [`is_forbidden`]: the exact renju forbidden-point test for black, with the recursive
//!    "real three" rule, evaluated on the live board.
//!
//! The board edge never blocks a five (protocol.md §4: only opponent stones block).

use crate::board::{Board, Pos, Stone, DIRECTIONS};

/// The game rule of a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Five or more in a row wins (INFO rule 0).
    Freestyle,
    /// Exactly five wins; six or more does not (INFO rule 1).
    Standard,
    /// Renju: black's double-three, double-four and overline are forbidden (INFO rule 4; Yixin 2).
    Renju,
    /// Caro as Gomocup's judge scores rule 8: an exact five not blocked at both ends, or an overline.
    CaroOverline,
    /// Caro as rule 9: only an exact five that is not blocked at both ends.
    Caro,
}

impl Rule {
    /// Every rule, in a fixed order (bench, tests).
    pub const ALL: [Rule; 5] = [
        Rule::Freestyle,
        Rule::Standard,
        Rule::Renju,
        Rule::CaroOverline,
        Rule::Caro,
    ];

    /// Decodes `INFO rule`. Piskvork's bitmask: 1 exact five, 2 continuous game, 4 renju,
    /// 8 caro (with 1: strict caro). Yixin-Board and Rapfi send 2 alone for renju, so a lone 2 is
    /// renju; the continuous-game bit is otherwise ignored (never used in tournaments).
    /// Returns `None` for values outside 0..=15.
    pub fn from_info_bits(bits: i64) -> Option<Rule> {
        if !(0..=15).contains(&bits) {
            return None;
        }
        let rule = if bits & 8 != 0 {
            if bits & 1 != 0 {
                Rule::Caro
            } else {
                Rule::CaroOverline
            }
        } else if bits & 4 != 0 || bits == 2 {
            Rule::Renju
        } else if bits & 1 != 0 {
            Rule::Standard
        } else {
            Rule::Freestyle
        };
        Some(rule)
    }

    /// The value a manager would send in `INFO rule` for this rule.
    pub fn info_bits(self) -> i64 {
        match self {
            Rule::Freestyle => 0,
            Rule::Standard => 1,
            Rule::Renju => 4,
            Rule::CaroOverline => 8,
            Rule::Caro => 9,
        }
    }

    /// Short lower-case name for logs and tool output.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Freestyle => "freestyle",
            Rule::Standard => "standard",
            Rule::Renju => "renju",
            Rule::CaroOverline => "caro8",
            Rule::Caro => "caro9",
        }
    }

    /// The evaluation weights of this rule: for now the freestyle weights serve every rule.
    /// Weights fitted the same way to 16,578 standard positions (tests/tune.rs) lowered the
    /// held-out loss on them (0.621 to 0.572) but lost in standard self-play: −73.4 ± 37.2 Elo
    /// (SPRT [0, 10] H0 after 341 games at 100 ms per move), and −64.4 ± 39.4 after 300 games
    /// with the crossing weights kept.
    pub fn eval_weights(self) -> &'static EvalWeights {
        &EVAL_FREESTYLE
    }

    /// Parses [`Rule::name`] (and a few aliases) back; used by command-line tools.
    pub fn from_name(name: &str) -> Option<Rule> {
        match name.to_ascii_lowercase().as_str() {
            "freestyle" | "0" => Some(Rule::Freestyle),
            "standard" | "exact" | "1" => Some(Rule::Standard),
            "renju" | "4" | "2" => Some(Rule::Renju),
            "caro8" | "caro" | "8" => Some(Rule::CaroOverline),
            "caro9" | "9" => Some(Rule::Caro),
            _ => None,
        }
    }

    /// How a run of stones of `stone` counts as a five under this rule.
    fn five_rule(self, stone: Stone) -> FiveRule {
        match (self, stone) {
            (Rule::Freestyle, _) | (Rule::Renju, Stone::White) => FiveRule::FiveOrMore,
            (Rule::Standard, _) | (Rule::Renju, Stone::Black) => FiveRule::Exact,
            (Rule::CaroOverline, _) => FiveRule::CaroOverline,
            (Rule::Caro, _) => FiveRule::CaroExact,
        }
    }

    /// True when `stone` is restricted by renju's forbidden shapes under this rule.
    pub fn has_forbidden(self, stone: Stone) -> bool {
        self == Rule::Renju && stone == Stone::Black
    }
}

/// What one stone placed on an empty cell makes in one direction, weakest first.
///
/// The levels follow the usual recursive definition: a four (`B4`) has one completion square, a
/// straight four (`F4`) two that are five apart (`_XXXX_`); a three (`F3`) can become a straight
/// four with one more stone, a closed three (`B3`) only a four; twos and ones likewise.
/// `DoubleB4` is two fours in one line (`X_XXX_X` with the stone in the middle).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Pattern {
    /// No five can ever be made through this cell in this line.
    Dead = 0,
    /// Six or more that is not a win under the rule.
    Overline = 1,
    /// One stone that can still grow (blocked side).
    B1 = 2,
    /// One stone with room on both sides.
    F1 = 3,
    /// Closed two.
    B2 = 4,
    /// Open two.
    F2 = 5,
    /// Closed three: one more stone makes a four.
    B3 = 6,
    /// Open three: one more stone makes a straight four.
    F3 = 7,
    /// Four: one square completes a five.
    B4 = 8,
    /// Two fours in one line.
    DoubleB4 = 9,
    /// Straight four: two squares complete a five.
    F4 = 10,
    /// Five (a win under the rule).
    F5 = 11,
}

// A pattern fits in a nibble: the line table packs both colours' patterns in one byte.
const _: () = assert!(Pattern::COUNT <= 16);

impl Pattern {
    /// Number of pattern values.
    pub const COUNT: usize = 12;
    pub const ALL: [Pattern; Pattern::COUNT] = [
        Pattern::Dead,
        Pattern::Overline,
        Pattern::B1,
        Pattern::F1,
        Pattern::B2,
        Pattern::F2,
        Pattern::B3,
        Pattern::F3,
        Pattern::B4,
        Pattern::DoubleB4,
        Pattern::F4,
        Pattern::F5,
    ];

    /// The pattern with this discriminant (values above 11 map to `Dead`).
    pub fn from_u8(v: u8) -> Pattern {
        Pattern::ALL
            .get(v as usize)
            .copied()
            .unwrap_or(Pattern::Dead)
    }

    /// True for the patterns that make a four or better.
    pub fn is_four_or_five(self) -> bool {
        self >= Pattern::B4
    }
}

/// The four directions of an empty cell folded into one class for one colour, weakest first.
/// The board counts cells per class, so "can I win in 1 / 3?" is answered from counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Threat {
    /// Renju, black: a double-four or overline that is certainly forbidden.
    Forbidden = 0,
    /// Nothing of note.
    None = 1,
    /// Twos and closed threes.
    Minor = 2,
    /// Makes one open three.
    Three = 3,
    /// Makes one four.
    Four = 4,
    /// Makes two open threes.
    ThreeThree = 5,
    /// Makes a four and an open three.
    FourThree = 6,
    /// Makes a straight four or two fours: wins next move unless the opponent has a five.
    FlexFour = 7,
    /// Makes a five.
    Five = 8,
}

impl Threat {
    /// Number of threat classes.
    pub const COUNT: usize = 9;
    pub const ALL: [Threat; Threat::COUNT] = [
        Threat::Forbidden,
        Threat::None,
        Threat::Minor,
        Threat::Three,
        Threat::Four,
        Threat::ThreeThree,
        Threat::FourThree,
        Threat::FlexFour,
        Threat::Five,
    ];

    /// The class with this discriminant (out-of-range values map to `None`).
    pub fn from_u8(v: u8) -> Threat {
        Threat::ALL.get(v as usize).copied().unwrap_or(Threat::None)
    }
}

/// One cell's combined view for one colour: threat class, potential value, and whether the
/// renju double-three test must be run before black may play there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct CellInfo {
    /// [`Threat`] discriminant.
    pub threat: u8,
    /// Set for renju black when two or more open threes meet here (maybe a double-three).
    pub needs_forbid_check: bool,
    /// Integer potential of a stone here, used by move ordering (at most
    /// 4·1000 + 2000; `i16` keeps the struct at 8 bytes, half the combine tables' cache load).
    pub value: i16,
    /// Evaluation weight of this cell for its colour: `[when that colour is to move, when it
    /// is not]` (fitted weights, see [`EvalWeights`]; the board sums them as `i32`).
    pub eval: [i16; 2],
}

// The combine tables are read once per refreshed cell; keep an entry at 8 bytes.
const _: () = assert!(std::mem::size_of::<CellInfo>() == 8);

/// How a run through the cell counts as five.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FiveRule {
    FiveOrMore,
    Exact,
    CaroExact,
    CaroOverline,
}

/// Number of cells on each side of the centre in a line window.
pub const HALF_WINDOW: usize = 5;
/// Bits of a line key: 2 bits for each of the 10 cells around the centre.
pub const KEY_BITS: u32 = 20;
const WINDOW: usize = 2 * HALF_WINDOW + 1;
const KEY_SPACE: usize = 1 << KEY_BITS;

/// Cell codes inside line keys and windows. On the board, 1 is black and 2 white; relative to a
/// colour, 1 is "own" and 2 "opponent".
const EMPTY: u8 = 0;
const OWN: u8 = 1;
const OPP: u8 = 2;
const WALL: u8 = 3;

/// Number of classes of [`combo_index`].
pub const COMBO_COUNT: usize = 126;

/// The evaluation weights of one rule, each for the side to move (`[0]`) and for the opponent
/// (`[1]`): of one direction's [`Pattern`] at an empty cell, of a cell's [`Threat`] class, and
/// of a cell's combination of direction patterns ([`combo_index`]) on top of the
/// per-direction weights (what two crossing lines are worth beyond the sum of their parts;
/// combinations with fewer than two directions above B1 are 0). Five, straight four, double
/// four and overline are kept fixed: they decide the game before the evaluation is asked.
#[derive(Debug)]
pub struct EvalWeights {
    pub pattern: [[i32; Pattern::COUNT]; 2],
    pub threat: [[i32; Threat::COUNT]; 2],
    pub combo: [[i32; COMBO_COUNT]; 2],
}

/// The weights of every rule ([`Rule::eval_weights`]): fitted by logistic regression to the search scores of
/// a stronger engine (Rapfi-classical at 20,000 nodes) on 13,733 freestyle positions from game
/// records (tests/tune.rs says how): held-out log-loss 0.557 with the previous weights (fitted
/// to game results) at their best scale, 0.456 with these.
pub const EVAL_FREESTYLE: EvalWeights = EvalWeights {
    pattern: [
        [0, 0, 13, 14, 4, 218, 194, 244, 267, 293, 293, 1125],
        [0, 0, 13, 13, -3, 111, 108, 123, 107, 228, 228, 875],
    ],
    threat: [
        [0, 0, -159, 54, 102, 1166, 5598, 1003, 2250],
        [0, 0, -69, 121, 234, 15, 2298, 618, 1750],
    ],
    combo: [
        [
            0, 0, -16, -106, -190, 0, 44, 123, 4, -108, -12, -20, -196, -454, -1319, 0, 71, 107,
            520, 66, 122, 611, -61, -115, -559, 47, 134, 607, 346, 402, 124, 286, 330, -63, 0, 0,
            126, 273, 380, 97, 351, 71, 315, -282, -1056, 408, 217, 540, 284, 890, -1344, 1196,
            485, 187, -1521, -242, 1060, -705, 138, 652, -345, -96, 4, 237, 0, -597, 0, -206, 0, 0,
            0, 121, 390, 44, 340, 490, 625, 887, 748, -29, 165, 178, 627, 666, 585, 536, 24, 306,
            3, 1, -322, 245, 0, 51, 2, 1, 25, 0, 0, 0, 0, 0, 0, 13, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ],
        [
            0, 0, -13, -7, 86, 0, 70, 112, 62, 3, 37, -29, 61, -17, -193, 0, 75, 57, 276, 63, 97,
            587, -87, -460, -119, -53, 405, 249, -33, 647, 290, 39, 209, -668, -145, 0, 109, 143,
            509, -21, 254, 389, 43, -392, -301, 82, 210, 755, -37, -669, -474, -152, 707, 99,
            -1272, 158, 305, 685, 422, 65, -163, -489, 562, 193, 0, -1813, 0, 0, 0, 0, 0, 206, 419,
            593, 314, 432, 1177, 784, 803, 257, 284, 438, 1144, 1086, 699, 599, 777, 826, 311, 210,
            -376, 854, 323, -88, 222, -603, -47, -178, -50, 1, 0, 0, -8, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ],
    ],
};

/// The rank of a direction's pattern inside a combination: 0 up to F1, then B2, F2, B3, F3, and
/// 5 for a four or more.
fn combo_rank(p: Pattern) -> usize {
    match p {
        Pattern::B2 => 1,
        Pattern::F2 => 2,
        Pattern::B3 => 3,
        Pattern::F3 => 4,
        Pattern::B4 | Pattern::DoubleB4 | Pattern::F4 | Pattern::F5 => 5,
        Pattern::Dead | Pattern::Overline | Pattern::B1 | Pattern::F1 => 0,
    }
}

/// The class (0..[`COMBO_COUNT`]) of the multiset of the four directions' ranks, in the
/// combinatorial number system: sorted ranks `r0 <= r1 <= r2 <= r3` become the strictly
/// increasing `r_i + i` below 9, whose index is the sum of `C(r_i + i, i + 1)`.
pub fn combo_index(pats: [Pattern; 4]) -> usize {
    let mut ranks = pats.map(combo_rank);
    ranks.sort_unstable();
    let binomial = |n: usize, k: usize| -> usize {
        if k > n {
            return 0;
        }
        (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
    };
    ranks
        .iter()
        .enumerate()
        .map(|(i, &r)| binomial(r + i, i + 1))
        .sum()
}

/// Potential of one direction's pattern, for move ordering.
pub const PATTERN_VALUE: [i32; Pattern::COUNT] = [0, 0, 1, 3, 6, 16, 20, 60, 70, 260, 260, 1000];
/// Extra potential of a combined class.
pub const THREAT_BONUS: [i32; Threat::COUNT] = [0, 0, 0, 0, 0, 150, 400, 600, 2000];

/// The slot (0..10) of window index `i` (0..11, centre excluded) inside a line key.
fn slot_of(i: usize) -> usize {
    if i < HALF_WINDOW {
        i
    } else {
        i - 1
    }
}

/// Per-rule lookup tables: line key → pattern of each colour, and four patterns → [`CellInfo`].
#[derive(Debug)]
pub struct PatternTable {
    rule: Rule,
    /// Indexed by a board line key (absolute codes: 1 black, 2 white, 3 wall); low nibble black's
    /// [`Pattern`], high nibble white's (one byte: the table is 1 MiB, read on every move).
    line: Vec<u8>,
    /// Indexed by `[colour][pair(p0, p1) · PAIRS + pair(p2, p3)]` ([`PAIR_CLASS`]): the
    /// combination does not depend on the order of the directions, so a table of unordered
    /// pairs is 3.4 times smaller than one of every ordered four (97 KiB for both colours
    /// instead of 332 KiB, read on every refreshed cell).
    combo: [Vec<CellInfo>; 2],
}

impl PatternTable {
    /// Builds the tables for `rule` (a few tens of milliseconds in a release build).
    pub fn new(rule: Rule) -> PatternTable {
        let mut black = Classifier::new(
            rule.five_rule(Stone::Black),
            rule.has_forbidden(Stone::Black),
        );
        let mut white = Classifier::new(
            rule.five_rule(Stone::White),
            rule.has_forbidden(Stone::White),
        );
        let mut line = vec![0u8; KEY_SPACE];
        for (key, entry) in line.iter_mut().enumerate() {
            let key = key as u32;
            let b = black.classify_key(key) as u8;
            let w = white.classify_key(swap_colours(key)) as u8;
            *entry = b | (w << 4);
        }
        let combo = [
            build_combo(rule, Stone::Black),
            build_combo(rule, Stone::White),
        ];
        PatternTable { rule, line, combo }
    }

    /// The rule these tables were built for.
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// Both colours' patterns for a board line key, packed as in the table (black low nibble).
    #[inline]
    pub fn lookup(&self, key: u32) -> u8 {
        self.line[(key as usize) & (KEY_SPACE - 1)]
    }

    /// The combined view of a cell for `stone` given its four direction patterns.
    #[inline]
    pub fn combine(&self, stone: Stone, pats: [u8; 4]) -> CellInfo {
        let pair = |a: u8, b: u8| {
            usize::from(PAIR_CLASS[usize::from(a) * Pattern::COUNT + usize::from(b)])
        };
        self.combo[stone.index()][pair(pats[0], pats[1]) * PAIRS + pair(pats[2], pats[3])]
    }
}

/// Swaps codes 1 and 2 in every slot of a key (black's view ⇄ white's view).
fn swap_colours(key: u32) -> u32 {
    const LOW: u32 = 0x5_5555;
    ((key & LOW) << 1) | ((key >> 1) & LOW)
}

/// Number of unordered pairs of patterns.
const PAIRS: usize = Pattern::COUNT * (Pattern::COUNT + 1) / 2;

/// The class of an ordered pair of pattern codes `(a, b)`, at `a · COUNT + b`: the index of the
/// unordered pair, `hi · (hi + 1) / 2 + lo`.
const PAIR_CLASS: [u8; Pattern::COUNT * Pattern::COUNT] = {
    let mut table = [0u8; Pattern::COUNT * Pattern::COUNT];
    let mut a = 0;
    while a < Pattern::COUNT {
        let mut b = 0;
        while b < Pattern::COUNT {
            let (lo, hi) = if a < b { (a, b) } else { (b, a) };
            table[a * Pattern::COUNT + b] = (hi * (hi + 1) / 2 + lo) as u8;
            b += 1;
        }
        a += 1;
    }
    table
};

/// The combine table of `stone` under `rule`, by pair classes (see [`PatternTable`]).
fn build_combo(rule: Rule, stone: Stone) -> Vec<CellInfo> {
    // A representative ordered pair of each class.
    let mut pairs = [(Pattern::Dead, Pattern::Dead); PAIRS];
    for a in 0..Pattern::COUNT {
        for b in 0..Pattern::COUNT {
            pairs[usize::from(PAIR_CLASS[a * Pattern::COUNT + b])] =
                (Pattern::ALL[a], Pattern::ALL[b]);
        }
    }
    let mut out = Vec::with_capacity(PAIRS * PAIRS);
    for &(p0, p1) in &pairs {
        for &(p2, p3) in &pairs {
            out.push(combine_patterns(rule, stone, [p0, p1, p2, p3]));
        }
    }
    out
}

/// Folds four direction patterns into a class (see [`Threat`]).
fn combine_patterns(rule: Rule, stone: Stone, pats: [Pattern; 4]) -> CellInfo {
    let count = |p: Pattern| pats.iter().filter(|&&q| q == p).count();
    let fives = count(Pattern::F5);
    let straight = count(Pattern::F4);
    let double_in_line = count(Pattern::DoubleB4);
    let fours = count(Pattern::B4);
    let threes = count(Pattern::F3);
    let overlines = count(Pattern::Overline);
    let minor = pats
        .iter()
        .filter(|&&p| p == Pattern::B3 || p == Pattern::F2)
        .count();
    let mut needs_forbid_check = false;
    let threat = if fives > 0 {
        Threat::Five
    } else if rule.has_forbidden(stone) {
        // Renju, black: a five overrides everything (above); two fours or an overline are
        // forbidden outright; two open threes may be a double-three, decided by `is_forbidden`.
        let all_fours = straight + fours + 2 * double_in_line;
        if all_fours >= 2 || overlines > 0 {
            Threat::Forbidden
        } else {
            needs_forbid_check = threes >= 2;
            if straight > 0 {
                Threat::FlexFour
            } else if fours > 0 && threes > 0 {
                Threat::FourThree
            } else if fours > 0 {
                Threat::Four
            } else if threes >= 2 {
                Threat::ThreeThree
            } else if threes == 1 {
                Threat::Three
            } else if minor > 0 {
                Threat::Minor
            } else {
                Threat::None
            }
        }
    } else if straight + double_in_line > 0 || fours >= 2 {
        Threat::FlexFour
    } else if fours > 0 && threes > 0 {
        Threat::FourThree
    } else if fours > 0 {
        Threat::Four
    } else if threes >= 2 {
        Threat::ThreeThree
    } else if threes == 1 {
        Threat::Three
    } else if minor > 0 {
        Threat::Minor
    } else {
        Threat::None
    };
    let value = if threat == Threat::Forbidden {
        0
    } else {
        pats.iter().map(|&p| PATTERN_VALUE[p as usize]).sum::<i32>() + THREAT_BONUS[threat as usize]
    };
    let weights = rule.eval_weights();
    let eval = if threat == Threat::Forbidden {
        [0, 0]
    } else {
        [0, 1].map(|role| {
            pats.iter()
                .map(|&p| weights.pattern[role][p as usize])
                .sum::<i32>()
                + weights.threat[role][threat as usize]
                + weights.combo[role][combo_index(pats)]
        })
    };
    let narrow = |v: i32| i16::try_from(v).expect("pattern weights fit in i16");
    CellInfo {
        threat: threat as u8,
        needs_forbid_check,
        value: narrow(value),
        eval: eval.map(narrow),
    }
}

/// Classifies line windows relative to one colour, memoised on canonical keys.
///
/// A window is 11 codes with the centre (index 5) holding an own stone. Cells beyond the first
/// opponent stone or wall on each side can never take part in a five through the centre, so the
/// key is canonicalised by turning them into walls; only a few thousand distinct keys remain.
struct Classifier {
    five_rule: FiveRule,
    /// Renju black: an open three must become a *straight* four (RIF), not a double four.
    straight_only: bool,
    memo: Vec<u8>,
}

const UNKNOWN: u8 = u8::MAX;

impl Classifier {
    fn new(five_rule: FiveRule, straight_only: bool) -> Classifier {
        Classifier {
            five_rule,
            straight_only,
            memo: vec![UNKNOWN; KEY_SPACE],
        }
    }

    fn classify_key(&mut self, key: u32) -> Pattern {
        let canon = canonical(key);
        let cached = self.memo[canon as usize];
        if cached != UNKNOWN {
            return Pattern::from_u8(cached);
        }
        let window = window_of(canon);
        let pat = self.classify_window(window);
        self.memo[canon as usize] = pat as u8;
        pat
    }

    fn classify_window(&mut self, mut w: [u8; WINDOW]) -> Pattern {
        if self.is_five(&w) {
            return Pattern::F5;
        }
        if run_through_centre(&w).0 >= 6 {
            return Pattern::Overline;
        }
        let mut five_points = [0usize; WINDOW];
        let mut n_points = 0;
        for i in 0..WINDOW {
            if w[i] != EMPTY {
                continue;
            }
            w[i] = OWN;
            if self.is_five(&w) {
                five_points[n_points] = i;
                n_points += 1;
            }
            w[i] = EMPTY;
        }
        if n_points >= 2 {
            let pts = &five_points[..n_points];
            let straight = pts.iter().any(|&a| pts.iter().any(|&b| b == a + 5));
            return if straight {
                Pattern::F4
            } else {
                Pattern::DoubleB4
            };
        }
        if n_points == 1 {
            return Pattern::B4;
        }
        let mut best = Pattern::Dead;
        for i in 0..WINDOW {
            if w[i] != EMPTY {
                continue;
            }
            w[i] = OWN;
            let sub = self.classify_key(key_of(&w));
            w[i] = EMPTY;
            let level = match sub {
                Pattern::F4 => Pattern::F3,
                Pattern::DoubleB4 if !self.straight_only => Pattern::F3,
                Pattern::DoubleB4 | Pattern::B4 => Pattern::B3,
                Pattern::F3 => Pattern::F2,
                Pattern::B3 => Pattern::B2,
                Pattern::F2 => Pattern::F1,
                Pattern::B2 => Pattern::B1,
                _ => Pattern::Dead,
            };
            best = best.max(level);
        }
        best
    }

    fn is_five(&self, w: &[u8; WINDOW]) -> bool {
        let (len, left_end, right_end) = run_through_centre(w);
        let blocked_both = left_end == OPP && right_end == OPP;
        match self.five_rule {
            FiveRule::FiveOrMore => len >= 5,
            FiveRule::Exact => len == 5,
            FiveRule::CaroExact => len == 5 && !blocked_both,
            FiveRule::CaroOverline => len >= 6 || (len == 5 && !blocked_both),
        }
    }
}

/// Length of the run of own stones through the centre, and the codes just past each end
/// (`WALL` when the run reaches the window edge).
fn run_through_centre(w: &[u8; WINDOW]) -> (usize, u8, u8) {
    let c = HALF_WINDOW;
    let mut lo = c;
    while lo > 0 && w[lo - 1] == OWN {
        lo -= 1;
    }
    let mut hi = c;
    while hi + 1 < WINDOW && w[hi + 1] == OWN {
        hi += 1;
    }
    let left = if lo > 0 { w[lo - 1] } else { WALL };
    let right = if hi + 1 < WINDOW { w[hi + 1] } else { WALL };
    (hi - lo + 1, left, right)
}

/// The window (centre = own stone) of a relative key.
fn window_of(key: u32) -> [u8; WINDOW] {
    let mut w = [EMPTY; WINDOW];
    for (i, cell) in w.iter_mut().enumerate() {
        *cell = if i == HALF_WINDOW {
            OWN
        } else {
            ((key >> (2 * slot_of(i))) & 3) as u8
        };
    }
    w
}

/// The relative key of a window (centre ignored).
fn key_of(w: &[u8; WINDOW]) -> u32 {
    let mut key = 0;
    for (i, &cell) in w.iter().enumerate() {
        if i != HALF_WINDOW {
            key |= (cell as u32) << (2 * slot_of(i));
        }
    }
    key
}

/// Replaces every cell beyond the first opponent stone or wall on each side by a wall.
fn canonical(key: u32) -> u32 {
    let mut w = window_of(key);
    let c = HALF_WINDOW;
    let mut blocked = false;
    for i in (0..c).rev() {
        if blocked {
            w[i] = WALL;
        } else if w[i] == OPP || w[i] == WALL {
            blocked = true;
        }
    }
    blocked = false;
    for cell in w.iter_mut().skip(c + 1) {
        if blocked {
            *cell = WALL;
        } else if *cell == OPP || *cell == WALL {
            blocked = true;
        }
    }
    key_of(&w)
}

/// True if the side to move may not play `pos`: renju's forbidden squares when black is to
/// move, never otherwise. The one question move generation, the session and the arena's referee
/// ask.
pub fn is_forbidden_move(board: &mut Board, pos: Pos) -> bool {
    board.rule().has_forbidden(board.side_to_move()) && is_forbidden(board, pos)
}

/// True if black may not play `pos` under renju (double-three with real threes, double-four or
/// overline, unless the move makes an exact five). Always false under other rules, for white,
/// and for occupied cells. The board is borrowed mutably to try moves; it is restored.
pub fn is_forbidden(board: &mut Board, pos: Pos) -> bool {
    if !board.rule().has_forbidden(Stone::Black) || !board.is_empty(pos) {
        return false;
    }
    forbidden_at(board, pos, 0)
}

/// Depth bound for the real-three recursion: a square this deep is taken as forbidden, so the
/// three that needs it does not count (such chains do not occur in real games).
const MAX_FORBID_DEPTH: u32 = 8;

fn forbidden_at(board: &mut Board, pos: Pos, depth: u32) -> bool {
    let info = board.cell_info(pos, Stone::Black);
    match Threat::from_u8(info.threat) {
        Threat::Five => return false,
        Threat::Forbidden => return true,
        _ => {}
    }
    if !info.needs_forbid_check {
        return false;
    }
    if depth >= MAX_FORBID_DEPTH {
        return true;
    }
    let three_dirs: Vec<usize> = (0..4)
        .filter(|&d| board.pattern(pos, d, Stone::Black) == Pattern::F3)
        .collect();
    board.put(pos, Stone::Black);
    let mut real_threes = 0;
    for &d in &three_dirs {
        let step = DIRECTIONS[d];
        let mut real = false;
        for k in -4isize..=4 {
            if k == 0 {
                continue;
            }
            let q = pos.offset(step * k);
            // RIF: the straight four must be made without making a five at the same time.
            if board.is_empty(q)
                && board.pattern(q, d, Stone::Black) == Pattern::F4
                && board.threat(q, Stone::Black) != Threat::Five
                && !forbidden_at(board, q, depth + 1)
            {
                real = true;
                break;
            }
        }
        if real {
            real_threes += 1;
        }
    }
    board.remove(pos);
    real_threes >= 2
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
