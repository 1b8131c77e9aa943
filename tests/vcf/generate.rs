//! Builds `tests/data/vcf.txt` from self-play game records (SGF as `pbrain-wuzi match --sgf`
//! writes them) and the hand-made boards below; every verdict comes from the oracle. See the
//! `generate` test in `tests/vcf.rs` for the commands. Deterministic: the same records give
//! the same file.

use super::data::{Entry, Expect};
use super::oracle::{attacker_moves, solve, OBoard, ORule, Verdict, BLACK, EMPTY, WHITE};
use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::Path;

/// Oracle node budget per position; a position that needs more is skipped.
const BUDGET: u64 = 2_000_000;
/// Positions considered per game: `k` plies before the final five (k = 1: the five itself is
/// the next move).
const PLIES: std::ops::RangeInclusive<usize> = 2..=60;

/// Wins and hard negatives wanted from each group of records (file stem).
const TARGETS: [(&str, usize, usize); 4] = [
    ("fs15", 65, 42),
    ("fs20", 65, 42),
    ("std15", 20, 12),
    ("std20", 20, 12),
];

/// One self-play game.
struct Game {
    rule: ORule,
    size: usize,
    moves: Vec<(usize, usize)>,
    number: usize,
}

fn coord(c: u8) -> usize {
    if c.is_ascii_lowercase() {
        (c - b'a') as usize
    } else {
        (c - b'A') as usize + 26
    }
}

/// The games of an SGF file written by the arena (one game tree per game).
fn parse_sgf(text: &str) -> Vec<Game> {
    let prop = |tree: &str, key: &str| -> Option<String> {
        let at = tree.find(&format!("{key}["))? + key.len() + 1;
        let end = tree[at..].find(']')?;
        Some(tree[at..at + end].to_string())
    };
    let mut games = Vec::new();
    for tree in text.split("(;").skip(1) {
        let size: usize = prop(tree, "SZ").and_then(|s| s.parse().ok()).unwrap_or(15);
        let rule = match prop(tree, "RU").as_deref() {
            Some("freestyle") => ORule::Freestyle,
            Some("standard") => ORule::Standard,
            _ => continue,
        };
        let number = prop(tree, "GN").and_then(|s| s.parse().ok()).unwrap_or(0);
        let mut moves = Vec::new();
        let bytes = tree.as_bytes();
        for i in 0..bytes.len().saturating_sub(5) {
            if bytes[i] == b';'
                && (bytes[i + 1] == b'B' || bytes[i + 1] == b'W')
                && bytes[i + 2] == b'['
            {
                moves.push((coord(bytes[i + 3]), coord(bytes[i + 4])));
            }
        }
        games.push(Game {
            rule,
            size,
            moves,
            number,
        });
    }
    games
}

/// One classified position of a game.
struct Cand {
    /// The group: the record file's stem up to the first `-` (`fs20-slow.sgf` is in `fs20`).
    group: String,
    /// The record file's stem.
    source: String,
    /// (record file index, game number GN).
    game: (usize, usize),
    k: usize,
    rule: ORule,
    size: usize,
    moves: Vec<(usize, usize)>,
    /// Attacker moves of a shortest VCF, or `None` for a proven no-VCF.
    win: Option<usize>,
    /// Four moves of the side to move.
    fours: usize,
    /// The opponent has a five square (it just made a four): the side to move must block.
    threatened: bool,
    /// The side to move is the game's winner.
    winner: bool,
}

fn board_of(rule: ORule, size: usize, moves: &[(usize, usize)]) -> OBoard {
    let mut b = OBoard::new(size, size, rule);
    for (k, &(x, y)) in moves.iter().enumerate() {
        let i = b.idx(x as i32, y as i32);
        b.set(i, if k % 2 == 0 { BLACK } else { WHITE });
    }
    b
}

/// Classifies the positions near the end of one game.
fn classify(
    source: (usize, &str),
    g: &Game,
    seen: &mut HashSet<(u64, usize, bool)>,
    skipped: &mut usize,
    out: &mut Vec<Cand>,
) {
    let n = g.moves.len();
    let mut full = board_of(g.rule, g.size, &g.moves);
    let last = full.idx(g.moves[n - 1].0 as i32, g.moves[n - 1].1 as i32);
    if !full.five_at(last) {
        return; // not decided by a five
    }
    let winner = if n % 2 == 1 { BLACK } else { WHITE };
    for k in PLIES {
        if k + 6 > n {
            break;
        }
        let moves = &g.moves[..n - k];
        let mut b = board_of(g.rule, g.size, moves);
        let key = (b.hash(), g.size, g.rule == ORule::Standard);
        if !seen.insert(key) {
            continue;
        }
        let side = b.side_to_move();
        let (verdict, _) = solve(&mut b, BUDGET);
        let win = match verdict {
            Verdict::Win(line) => Some(attacker_moves(&line)),
            Verdict::NoWin => None,
            Verdict::Unknown => {
                *skipped += 1;
                continue;
            }
        };
        out.push(Cand {
            group: source.1.split('-').next().unwrap_or_default().to_string(),
            source: source.1.to_string(),
            game: (source.0, g.number),
            k,
            rule: g.rule,
            size: g.size,
            moves: moves.to_vec(),
            win,
            fours: b.four_moves(side).len(),
            threatened: !b.five_squares(3 - side).is_empty(),
            winner: side == winner,
        });
    }
}

/// Picks wins for one group, by length bucket: 10+ (up to 35% of `want`), 7-9 (30%), 5-6
/// (25%), 2-4 (the rest); quota a bucket cannot fill passes to the next. Within a bucket the
/// lengths take turns (longest first), each in game order; at most two positions per game,
/// whose lengths differ by 3 or more.
fn pick_wins<'a>(cands: &[&'a Cand], want: usize) -> Vec<&'a Cand> {
    let buckets = [(10, usize::MAX, 35), (7, 9, 30), (5, 6, 25), (2, 4, 100)];
    let mut picked: Vec<&Cand> = Vec::new();
    let mut quota = 0;
    for (lo, hi, percent) in buckets {
        quota = (quota + want * percent / 100).min(want);
        let mut lengths: Vec<usize> = cands
            .iter()
            .filter_map(|c| c.win)
            .filter(|n| (lo..=hi).contains(n))
            .collect();
        lengths.sort_unstable_by(|a, b| b.cmp(a));
        lengths.dedup();
        let mut queues: Vec<Vec<&Cand>> = lengths
            .iter()
            .map(|&n| {
                let mut q: Vec<&Cand> =
                    cands.iter().copied().filter(|c| c.win == Some(n)).collect();
                q.sort_by_key(|c| (std::cmp::Reverse(c.game), std::cmp::Reverse(c.k)));
                q // popped from the back: game order
            })
            .collect();
        while picked.len() < quota && queues.iter().any(|q| !q.is_empty()) {
            for q in queues.iter_mut() {
                while let Some(c) = q.pop() {
                    let same: Vec<&&Cand> = picked.iter().filter(|p| p.game == c.game).collect();
                    let far = |p: &&&Cand| {
                        let (a, b) = (p.win.unwrap_or(0), c.win.unwrap_or(0));
                        a.max(b) - a.min(b) >= 3
                    };
                    if same.len() < 2 && same.iter().all(far) {
                        picked.push(c);
                        break;
                    }
                }
                if picked.len() >= quota {
                    break;
                }
            }
        }
    }
    picked
}

/// Picks hard negatives for one group: positions with at least one four; per game at most
/// one where the side to move must block a four and one other, in game order.
fn pick_nones<'a>(cands: &[&'a Cand], want: usize) -> Vec<&'a Cand> {
    let mut picked: Vec<&Cand> = Vec::new();
    let hard: Vec<&Cand> = cands
        .iter()
        .copied()
        .filter(|c| c.win.is_none() && c.fours > 0)
        .collect();
    // Pass 1: the opponent just made a four. Pass 2: the eventual winner, not yet winning by
    // fours. Pass 3: the loser, with fours that lead nowhere. One of each kind per game.
    let kinds: [&dyn Fn(&Cand) -> bool; 3] =
        [&|c| c.threatened, &|c| !c.threatened && c.winner, &|c| {
            !c.threatened && !c.winner
        }];
    let share = [want / 3, want * 2 / 3, want];
    for (kind, cap) in kinds.iter().zip(share) {
        let mut games = HashSet::new();
        for &c in &hard {
            if picked.len() >= cap {
                break;
            }
            if kind(c) && games.insert(c.game) && !picked.iter().any(|p| std::ptr::eq(*p, c)) {
                picked.push(c);
            }
        }
    }
    picked
}

/// Hand-made boards (15×15, the pattern drawn from the top-left corner; the rest is empty and
/// [`balance`] adds far-away filler stones so that the given side is to move). Each has the
/// verdict it was built for, which the oracle must confirm.
const HAND: [(&str, ORule, u8, Option<usize>, &str); 13] = [
    (
        "row four, then an open four in column 5",
        ORule::Freestyle,
        BLACK,
        Some(3),
        "
        . . . . . . .
        . . . . . . .
        . O X X X . .
        . . . . . X O
        . . . . . X O
        ",
    ),
    (
        "the same, but white's forced block makes an open four in column 6",
        ORule::Freestyle,
        BLACK,
        None,
        "
        . . . . . . .
        . . . . . . .
        . O X X X . .
        . . . . . X O
        . . . . . X O
        . . . . . . O
        ",
    ),
    (
        "white's block makes a closed four; black's forced block is an open four",
        ORule::Freestyle,
        BLACK,
        Some(3),
        "
        . . . . . . . .
        . . . . . . . .
        . O X X X . . .
        . . . . X X O .
        . . . X . X O .
        . . . . . . O .
        . . . . . . X .
        ",
    ),
    (
        "white's block makes a closed four; black's forced block is no four",
        ORule::Freestyle,
        BLACK,
        None,
        "
        . . . . . . . . . .
        . . . . . . . . . .
        . O X X X . . . . .
        . . . . X X O . . .
        . . . . . X O . . X
        . . . . . . O . . .
        . . . . . . X . . .
        ",
    ),
    (
        "white has a four on the board; black's block is the first four of the win",
        ORule::Freestyle,
        BLACK,
        Some(3),
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . O X X X . . . . . .
        . . . . . X O . . . .
        . . . . . X O O . . .
        . . . . . . . . O . .
        . . . . . . . . . O .
        . . . . . . . . . . X
        ",
    ),
    (
        "white has a four on the board; black's forced block is no four",
        ORule::Freestyle,
        BLACK,
        None,
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . O X X X . . . . . .
        . . . . . X O . . . .
        . . . . . X O . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . X O O O O . . . . .
        ",
    ),
    (
        "one stone makes two fours in one line: X.X.X.X",
        ORule::Standard,
        BLACK,
        Some(2),
        "
        . . . . . . . . . .
        . . . . . . . . . .
        . X . X . X . X . .
        ",
    ),
    (
        "double four whose second five square is an overline (freestyle: a win)",
        ORule::Freestyle,
        BLACK,
        Some(2),
        "
        . . . . . . . X . .
        . . . . . . . X . .
        . . . . . . . . . .
        . . . . . . . X . .
        . . . O X X X . . .
        . . . . . . . X . .
        . . . . . . . O . .
        ",
    ),
    (
        "the same stones under exact five: the overline square is no five, no VCF",
        ORule::Standard,
        BLACK,
        None,
        "
        . . . . . . . X . .
        . . . . . . . X . .
        . . . . . . . . . .
        . . . . . . . X . .
        . . . O X X X . . .
        . . . . . . . X . .
        . . . . . . . O . .
        ",
    ),
    (
        "white to move: the overline double four with colours swapped",
        ORule::Freestyle,
        WHITE,
        Some(2),
        "
        . . . . . . . O . .
        . . . . . . . O . .
        . . . . . . . . . .
        . . . . . . . O . .
        . . . X O O O . . .
        . . . . . . . O . .
        . . . . . . . X . .
        ",
    ),
    (
        "comb: three closed row fours would build column 4 (5 moves); an anti-diagonal \
         four through (4,2) is a shortcut in 3",
        ORule::Freestyle,
        BLACK,
        Some(3),
        "
        . . . . . . . . . .
        . . . O . . . . . .
        . . . . . X X X O .
        O X X X . . . . . .
        . . . . . X X X O .
        O X X X . . . . . .
        . . . O . . . . . .
        ",
    ),
    (
        "the comb under exact five",
        ORule::Standard,
        BLACK,
        Some(3),
        "
        . . . . . . . . . .
        . . . O . . . . . .
        . . . . . X X X O .
        O X X X . . . . . .
        . . . . . X X X O .
        O X X X . . . . . .
        . . . O . . . . . .
        ",
    ),
    (
        "three separate closed threes: many fours, no VCF",
        ORule::Freestyle,
        BLACK,
        None,
        "
        . . . . . . . . . . . . . . .
        O X X X . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . X . . . .
        . . . . . . . . . . X . . . .
        . . . . . . . . . . X . . . .
        . . . . . . . . . . O . . . .
        . . . . . . . . . . . . . . .
        . . O . . . . . . . . . . . .
        . . . X . . . . . . . . . . .
        . . . . X . . . . . . . . . .
        . . . . . X . . . . . . . . .
        ",
    ),
];

/// Far-away filler cells, tried in order (rows 13-14 and column 14, spaced so that no window
/// of five holds more than two of them).
const FILLER: [(usize, usize); 12] = [
    (0, 14),
    (3, 14),
    (6, 14),
    (9, 14),
    (12, 14),
    (14, 11),
    (14, 8),
    (1, 12),
    (4, 12),
    (7, 12),
    (10, 12),
    (13, 13),
];

/// The moves of a hand-made board: the drawn stones plus fillers of the short colour, so that
/// `side` is to move; black and white stones interleaved in board order.
fn balance(text: &str, rule: ORule, side: u8) -> Vec<(usize, usize)> {
    let small = OBoard::from_ascii(text, rule);
    let mut b = OBoard::new(15, 15, rule);
    for (i, &c) in small.cells.iter().enumerate() {
        let (x, y) = small.xy(i);
        if c != EMPTY {
            b.set(b.idx(x as i32, y as i32), c);
        }
    }
    let count = |b: &OBoard, s: u8| b.cells.iter().filter(|&&c| c == s).count();
    let mut fill = FILLER.iter();
    loop {
        let (nb, nw) = (count(&b, BLACK), count(&b, WHITE));
        let need = match side {
            BLACK if nb < nw => BLACK,
            BLACK if nb > nw => WHITE,
            WHITE if nb < nw + 1 => BLACK,
            WHITE if nb > nw + 1 => WHITE,
            _ => break,
        };
        let &(x, y) = fill.next().expect("enough filler cells");
        let i = b.idx(x as i32, y as i32);
        assert_eq!(b.cells[i], EMPTY, "filler on a drawn stone");
        b.set(i, need);
    }
    let stones = |s: u8| -> Vec<(usize, usize)> {
        (0..b.cells.len())
            .filter(|&i| b.cells[i] == s)
            .map(|i| b.xy(i))
            .collect()
    };
    let (blacks, whites) = (stones(BLACK), stones(WHITE));
    let mut moves = Vec::new();
    for k in 0..blacks.len() {
        moves.push(blacks[k]);
        if k < whites.len() {
            moves.push(whites[k]);
        }
    }
    moves
}

/// Builds the file text from the `.sgf` files in `dir` (sorted by name; the file stem up to
/// the first `-` names the group, see [`TARGETS`]) and the hand-made boards.
pub fn generate(dir: &Path) -> String {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("records directory")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().map_or(false, |e| e == "sgf"))
        .collect();
    files.sort();
    let mut seen = HashSet::new();
    let mut cands = Vec::new();
    for (index, path) in files.iter().enumerate() {
        let stem = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let text = std::fs::read_to_string(path).expect("readable record");
        let games = parse_sgf(&text);
        let before = cands.len();
        let mut skipped = 0;
        for g in &games {
            classify((index, &stem), g, &mut seen, &mut skipped, &mut cands);
        }
        let mut hist = std::collections::BTreeMap::new();
        for c in &cands[before..] {
            *hist.entry(c.win.unwrap_or(0)).or_insert(0) += 1;
        }
        eprintln!(
            "{}: {} games, {} classified positions ({skipped} over budget); by VCF length \
             (0 = none): {hist:?}",
            path.display(),
            games.len(),
            cands.len() - before
        );
    }

    let mut text = String::new();
    let _ = writeln!(
        text,
        "# VCF positions for tests/vcf.rs; format in tests/vcf/data.rs. Generated by the ignored\n\
         # test `generate` in tests/vcf.rs (commands there); verdicts and N from the independent\n\
         # oracle in tests/vcf/oracle.rs. Do not edit by hand: rerun the generator."
    );
    let mut entries = Vec::new();
    for (group, want_wins, want_nones) in TARGETS {
        let mine: Vec<&Cand> = cands.iter().filter(|c| c.group == group).collect();
        if mine.is_empty() {
            continue;
        }
        let (rule, size) = (mine[0].rule, mine[0].size);
        for (label, picked) in [
            ("wins", pick_wins(&mine, want_wins)),
            ("hard negatives", pick_nones(&mine, want_nones)),
        ] {
            let _ = writeln!(
                text,
                "\n# {group}: {label}: self-play, {} {size}x{size}; positions k plies before the \
                 final five of the game (record file, game number GN); fours = four moves of the side to move",
                rule.name()
            );
            for c in picked {
                let entry = Entry {
                    rule: c.rule,
                    width: c.size,
                    height: c.size,
                    expect: c.win.map_or(Expect::NoWin, Expect::Win),
                    moves: c.moves.clone(),
                    line: 0,
                };
                let kind = if c.win.is_some() {
                    ""
                } else if c.threatened {
                    ", must block a four"
                } else if c.winner {
                    ", the eventual winner"
                } else {
                    ", the eventual loser"
                };
                let _ = writeln!(
                    text,
                    "# {} game {} k={} fours={}{kind}",
                    c.source, c.game.1, c.k, c.fours
                );
                let _ = writeln!(text, "{}", entry.format());
                entries.push(entry);
            }
        }
    }

    let _ = writeln!(text, "\n# hand-made (tests/vcf/generate.rs, HAND)");
    for (name, rule, side, expect, drawing) in HAND {
        let moves = balance(drawing, rule, side);
        let mut b = board_of(rule, 15, &moves);
        assert_eq!(b.side_to_move(), side, "{name}");
        let (verdict, _) = solve(&mut b, 10 * BUDGET);
        let got = match &verdict {
            Verdict::Win(line) => Some(attacker_moves(line)),
            Verdict::NoWin => None,
            Verdict::Unknown => panic!("{name}: oracle budget"),
        };
        assert_eq!(got, expect, "{name}: {:?}", line_xy(&b, &verdict));
        let entry = Entry {
            rule,
            width: 15,
            height: 15,
            expect: got.map_or(Expect::NoWin, Expect::Win),
            moves,
            line: 0,
        };
        let _ = writeln!(text, "# {name}");
        let _ = writeln!(text, "{}", entry.format());
        entries.push(entry);
    }
    summary(&entries);
    text
}

fn line_xy(b: &OBoard, v: &Verdict) -> Vec<(usize, usize)> {
    match v {
        Verdict::Win(line) => line.iter().map(|&i| b.xy(i)).collect(),
        _ => Vec::new(),
    }
}

/// Prints counts by rule, size and VCF length.
fn summary(entries: &[Entry]) {
    let mut hist = std::collections::BTreeMap::new();
    let mut kinds = std::collections::BTreeMap::new();
    for e in entries {
        let win = match e.expect {
            Expect::Win(n) => {
                *hist.entry(n).or_insert(0) += 1;
                "win"
            }
            Expect::NoWin => "none",
        };
        let side = if e.moves.len() % 2 == 0 {
            "black"
        } else {
            "white"
        };
        *kinds
            .entry((e.rule.name(), e.width, win, side))
            .or_insert(0) += 1;
    }
    eprintln!("by rule, size, verdict, side to move: {kinds:?}");
    eprintln!("VCF length histogram (attacker moves): {hist:?}");
}
