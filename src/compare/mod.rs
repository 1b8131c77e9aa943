//! `pbrain-wuzi compare`: the classic search-algorithm comparison (issue 6).
//!
//! One of the reports wuzi grew from timed textbook search algorithms on a 15×15 board: the
//! computer plays white, black moves first, and for white's first six moves it recorded the
//! cumulative CPU seconds of each algorithm at depth 3 and 4. This module replays a fixed
//! reference game and, at each of white's turns, runs every variant of [`textbook`] on the same
//! position, plus wuzi's own engine ([`crate::search`]) at the same nominal depth. All of them use
//! one [`Board`] and one static evaluation ([`crate::eval::evaluate`]), so only the search
//! differs. The result is a markdown table with the report's seconds beside ours.
//!
//! Times are wall-clock ([`Instant`]) around each search alone, on the calling thread (the
//! parallel row: on its rayon pool); per-thread CPU time has no portable API. Every search starts
//! from a fresh copy of the position and fresh tables.

pub mod textbook;

use std::{
    io::{self, Write},
    sync::Arc,
    time::{Duration, Instant},
};

use anyhow::{bail, Context as _};

use crate::{
    board::{Board, Pos},
    rules::{PatternTable, Rule},
    search::{self, Limits, Score, Searcher},
    tt::TranspositionTable,
};

use self::textbook::{MoveSet, Options};

/// The reference game on a 15×15 board, freestyle, black first: `(x, y)` per ply. White's turns
/// come after plies 1, 3, 5, …; the game is only replayed, whatever the algorithms would play.
pub const REFERENCE_GAME: [(i64, i64); 14] = [
    (7, 7),
    (8, 8),
    (9, 8),
    (8, 7),
    (8, 9),
    (8, 6),
    (9, 10),
    (7, 10),
    (10, 9),
    (9, 7),
    (10, 11),
    (7, 8),
    (10, 8),
    (10, 10),
];
/// Board size the reference game (and the report) was played on.
pub const REFERENCE_SIZE: usize = 15;
/// Number of white turns the report timed.
pub const REPORT_MOVES: usize = 6;
/// Transposition table of the engine row, as in `bench`.
pub const ENGINE_TT_BYTES: usize = crate::bench::BENCH_TT_BYTES;

const USAGE: &str = "\
usage: pbrain-wuzi compare [--depth 3,4] [--moves 6] [--size 15] [--threads N] [--all]

Replays a fixed freestyle reference game and, at each of white's first MOVES turns, runs every
classic search algorithm on that position; prints a markdown table of cumulative milliseconds and
nodes beside the seconds of the original report.

  --depth D,D…  depths to compare (default 3,4)
  --moves N     white turns to time (default 6, at most 7)
  --size S      board size; the game is centred on it (default 15)
  --threads N   threads of the parallel row (default: all cores)
  --all         also run minimax, alpha-beta and PVS beyond depth 3 (skipped by default, as
                in the report: minutes to an hour per move)";

/// The rows of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// Minimax over every empty square.
    Minimax,
    /// Alpha-beta, board order.
    AlphaBeta,
    /// PVS, board order.
    Pvs,
    /// Alpha-beta with ordered moves.
    OrderedAlphaBeta,
    /// PVS with ordered moves.
    OrderedPvs,
    /// Ordered alpha-beta with a hash table.
    HashAlphaBeta,
    /// Ordered alpha-beta with a hash table, within two cells of a stone.
    RangeHashAlphaBeta,
    /// Ordered alpha-beta with the root moves searched in parallel.
    ParallelAlphaBeta,
    /// wuzi's own search at the same nominal depth.
    Engine,
}

impl Algorithm {
    /// Every row, in table order.
    pub const ALL: [Algorithm; 9] = [
        Algorithm::Minimax,
        Algorithm::AlphaBeta,
        Algorithm::Pvs,
        Algorithm::OrderedAlphaBeta,
        Algorithm::OrderedPvs,
        Algorithm::HashAlphaBeta,
        Algorithm::RangeHashAlphaBeta,
        Algorithm::ParallelAlphaBeta,
        Algorithm::Engine,
    ];

    /// The row's name, as in the report.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Minimax => "minimax",
            Algorithm::AlphaBeta => "alpha-beta",
            Algorithm::Pvs => "PVS",
            Algorithm::OrderedAlphaBeta => "ordered alpha-beta",
            Algorithm::OrderedPvs => "ordered PVS",
            Algorithm::HashAlphaBeta => "hash + ordered alpha-beta",
            Algorithm::RangeHashAlphaBeta => "range limit (radius 2) + hash + ordered alpha-beta",
            Algorithm::ParallelAlphaBeta => "ordered alpha-beta, rayon root parallelism",
            Algorithm::Engine => "wuzi's engine (same nominal depth)",
        }
    }

    /// True for the variants that search every empty square and so must all return minimax's
    /// value.
    pub fn full_width(self) -> bool {
        !matches!(self, Algorithm::RangeHashAlphaBeta | Algorithm::Engine)
    }

    /// The report's cumulative seconds after white's moves 1…6, where it has them.
    pub fn report_seconds(self, depth: i32) -> Option<[u32; REPORT_MOVES]> {
        match (self, depth) {
            (Algorithm::Minimax, 3) => Some([92, 183, 275, 361, 449, 544]),
            (Algorithm::AlphaBeta, 3) => Some([18, 28, 43, 59, 76, 95]),
            (Algorithm::Pvs, 3) => Some([13, 16, 24, 36, 49, 65]),
            (Algorithm::OrderedAlphaBeta, 3) => Some([1, 1, 2, 3, 4, 5]),
            (Algorithm::OrderedAlphaBeta, 4) => Some([29, 31, 35, 38, 41, 43]),
            (Algorithm::OrderedPvs, 3) => Some([1, 1, 2, 3, 4, 5]),
            (Algorithm::OrderedPvs, 4) => Some([29, 32, 38, 42, 46, 48]),
            (Algorithm::HashAlphaBeta, 3) => Some([1, 2, 2, 3, 4, 5]),
            (Algorithm::HashAlphaBeta, 4) => Some([27, 35, 41, 43, 46, 48]),
            (Algorithm::RangeHashAlphaBeta, 3) => Some([0, 0, 0, 1, 1, 1]),
            (Algorithm::RangeHashAlphaBeta, 4) => Some([0, 1, 1, 2, 2, 2]),
            _ => None,
        }
    }

    /// Why the variant is left out at `depth` unless `--all` is given, or `None` if it runs: the
    /// board-order full-width searches beyond depth 3, which the report left out too. At depth 4
    /// on the first position, on this project's shared 2-core machine, alpha-beta took 165 s
    /// (72 M nodes) and PVS 95 s (29 M nodes); minimax would visit about 2.4 G nodes, some 40
    /// minutes, per move.
    pub fn skip_reason(self, depth: i32) -> Option<&'static str> {
        if depth <= 3 {
            return None;
        }
        match self {
            Algorithm::Minimax => Some("skipped (about 40 min per move at depth 4)"),
            Algorithm::AlphaBeta => Some("skipped (about 3 min per move at depth 4)"),
            Algorithm::Pvs => Some("skipped (about 1.5 min per move at depth 4)"),
            _ => None,
        }
    }
}

/// Settings of one `compare` run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Depths, one table each.
    pub depths: Vec<i32>,
    /// White turns timed.
    pub moves: usize,
    /// Board width and height.
    pub size: usize,
    /// Threads of the parallel row.
    pub threads: usize,
    /// Run the variants that are skipped by default too.
    pub all: bool,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            depths: vec![3, 4],
            moves: REPORT_MOVES,
            size: REFERENCE_SIZE,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            all: false,
        }
    }
}

/// Largest number of white turns the reference game provides.
pub fn max_moves() -> usize {
    (REFERENCE_GAME.len() + 1) / 2
}

/// Parses the arguments after `compare`; `Ok(None)` means help was asked for.
pub fn parse_args(args: &[String]) -> anyhow::Result<Option<Settings>> {
    let mut settings = Settings::default();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) => (f, Some(v.to_string())),
            None => (arg, None),
        };
        if matches!(flag, "-h" | "--help" | "help") {
            return Ok(None);
        }
        if flag == "--all" {
            settings.all = true;
            i += 1;
            continue;
        }
        let value = match inline {
            Some(v) => v,
            None => {
                i += 1;
                match args.get(i) {
                    Some(v) => v.clone(),
                    None => bail!("compare: `{flag}` needs a value\n{USAGE}"),
                }
            }
        };
        i += 1;
        let number = |v: &str| -> anyhow::Result<usize> {
            v.trim()
                .parse()
                .with_context(|| format!("compare: `{flag}` expects a number, got `{v}`"))
        };
        match flag {
            "--depth" => {
                let mut depths = Vec::new();
                for part in value.split(',') {
                    let d = number(part)?;
                    if !(1..=search::MAX_DEPTH as usize).contains(&d) {
                        bail!(
                            "compare: depth {d} is out of range 1..={}",
                            search::MAX_DEPTH
                        );
                    }
                    depths.push(d as i32);
                }
                settings.depths = depths;
            }
            "--moves" => {
                let n = number(&value)?;
                if !(1..=max_moves()).contains(&n) {
                    bail!("compare: --moves must be in 1..={}", max_moves());
                }
                settings.moves = n;
            }
            "--size" => {
                settings.size = number(&value)?;
            }
            "--threads" => {
                let n = number(&value)?;
                if n == 0 {
                    bail!("compare: --threads must be at least 1");
                }
                settings.threads = n;
            }
            _ => bail!("compare: unknown argument `{arg}`\n{USAGE}"),
        }
    }
    Ok(Some(settings))
}

/// Entry point of `pbrain-wuzi compare`.
pub fn main(args: &[String]) -> anyhow::Result<()> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let result = match parse_args(args)? {
        None => writeln!(out, "{USAGE}").map_err(anyhow::Error::from),
        Some(settings) => run(&settings, &mut out),
    };
    match result {
        Err(e) if is_broken_pipe(&e) => Ok(()),
        other => other,
    }
}

/// True if `e` is a write to a closed pipe (`compare | head`): the reader has all it wanted.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<io::Error>()
        .map_or(false, |io| io.kind() == io::ErrorKind::BrokenPipe)
}

/// The positions before white's turns 1..=`moves`, on a `size`×`size` board with the reference
/// game centred on it.
pub fn positions(size: usize, moves: usize) -> anyhow::Result<Vec<Board>> {
    let table = Arc::new(PatternTable::new(Rule::Freestyle));
    let mut board = match Board::new(size, size, table) {
        Some(b) => b,
        None => bail!("compare: board size {size} is not supported"),
    };
    let shift = (size / 2) as i64 - (REFERENCE_SIZE / 2) as i64;
    let mut result = Vec::new();
    for (ply, &(x, y)) in REFERENCE_GAME.iter().enumerate() {
        if result.len() == moves {
            break;
        }
        let pos = match board.pos(x + shift, y + shift) {
            Some(p) if board.is_empty(p) => p,
            _ => bail!("compare: the reference game does not fit a {size}×{size} board"),
        };
        board.make(pos);
        if ply % 2 == 0 {
            result.push(board.clone());
        }
    }
    Ok(result)
}

/// One search's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Measurement {
    /// The move chosen.
    pub best: Option<Pos>,
    /// Root value for white.
    pub score: Score,
    /// Positions visited.
    pub nodes: u64,
    /// Wall time of the search alone.
    pub elapsed: Duration,
}

/// Runs `algorithm` to `depth` on a copy of `position`; `pool` serves the parallel row.
pub fn measure(
    algorithm: Algorithm,
    position: &Board,
    depth: i32,
    pool: &rayon::ThreadPool,
) -> Measurement {
    let mut board = position.clone();
    // Tables are built before the clock starts; the engine's is the only big one (the textbook
    // hash table is part of its search, as in the report, and takes a few milliseconds).
    let engine_tt = TranspositionTable::new(match algorithm {
        Algorithm::Engine => ENGINE_TT_BYTES,
        _ => 0,
    });
    let never = || false;
    let start = Instant::now();
    let outcome = match algorithm {
        Algorithm::Minimax => textbook::minimax(&mut board, depth, MoveSet::All),
        Algorithm::AlphaBeta => textbook::alpha_beta(&mut board, depth, Options::PLAIN),
        Algorithm::Pvs => textbook::pvs(&mut board, depth, Options::PLAIN),
        Algorithm::OrderedAlphaBeta => textbook::alpha_beta(&mut board, depth, Options::ORDERED),
        Algorithm::OrderedPvs => textbook::pvs(&mut board, depth, Options::ORDERED),
        Algorithm::HashAlphaBeta => textbook::alpha_beta(&mut board, depth, Options::HASHED),
        Algorithm::RangeHashAlphaBeta => {
            textbook::alpha_beta(&mut board, depth, Options::RANGE_HASHED)
        }
        Algorithm::ParallelAlphaBeta => {
            textbook::parallel_alpha_beta(&board, depth, Options::ORDERED, pool)
        }
        Algorithm::Engine => {
            let r = Searcher::new(&engine_tt, Limits::depth(depth), &never)
                .think(&mut board, &mut |_| {});
            textbook::Outcome {
                best: r.best,
                score: r.score,
                nodes: r.nodes,
            }
        }
    };
    Measurement {
        best: outcome.best,
        score: outcome.score,
        nodes: outcome.nodes,
        elapsed: start.elapsed(),
    }
}

/// Runs the comparison and writes the tables to `out`, one row as soon as it is measured.
pub fn run(settings: &Settings, out: &mut dyn Write) -> anyhow::Result<()> {
    let positions = positions(settings.size, settings.moves)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(settings.threads)
        .build()
        .context("compare: cannot build the thread pool")?;
    let game: Vec<String> = REFERENCE_GAME
        .iter()
        .map(|&(x, y)| format!("{x},{y}"))
        .collect();
    let n = positions.len();
    writeln!(
        out,
        "Reference game (freestyle, {s}×{s}, black first, the computer plays white{centred}): \
         {game}.",
        s = settings.size,
        centred = if settings.size == REFERENCE_SIZE {
            String::new()
        } else {
            format!(
                "; 15×15 coordinates, centred on the {}×{} board",
                settings.size, settings.size
            )
        },
        game = game.join(" "),
    )?;
    writeln!(
        out,
        "Ours: cumulative wall-clock milliseconds after white's moves 1…{n} (one thread; the \
         parallel row on {} threads) and the nodes of all {n} searches. Report: cumulative CPU \
         seconds (Pentium M, one core); ratio = report ÷ ours after move {}.",
        settings.threads,
        n.min(REPORT_MOVES),
    )?;
    for &depth in &settings.depths {
        writeln!(out)?;
        writeln!(out, "### Depth {depth}")?;
        writeln!(out)?;
        writeln!(
            out,
            "| algorithm | ours: ms after moves 1…{n} | nodes | report: s after moves 1…6 | \
             report ÷ ours |"
        )?;
        writeln!(out, "|---|---|---|---|---|")?;
        let mut results: Vec<(Algorithm, Vec<Measurement>)> = Vec::new();
        for algorithm in Algorithm::ALL {
            let report = algorithm.report_seconds(depth);
            let report_cell = report.map_or_else(
                || "–".to_string(),
                |r| r.iter().map(u32::to_string).collect::<Vec<_>>().join(" "),
            );
            if let (Some(reason), false) = (algorithm.skip_reason(depth), settings.all) {
                writeln!(
                    out,
                    "| {} | {reason}; `--all` runs it | – | {report_cell} | – |",
                    algorithm.name()
                )?;
                continue;
            }
            let measured: Vec<Measurement> = positions
                .iter()
                .map(|p| measure(algorithm, p, depth, &pool))
                .collect();
            let mut cumulative = Duration::ZERO;
            let ms: Vec<String> = measured
                .iter()
                .map(|m| {
                    cumulative += m.elapsed;
                    format_ms(cumulative)
                })
                .collect();
            let nodes: u64 = measured.iter().map(|m| m.nodes).sum();
            let at = n.min(REPORT_MOVES);
            let ours_at: Duration = measured[..at].iter().map(|m| m.elapsed).sum();
            let ratio =
                report.map_or_else(|| "–".to_string(), |r| format_ratio(r[at - 1], ours_at));
            writeln!(
                out,
                "| {} | {} | {} | {report_cell} | {ratio} |",
                algorithm.name(),
                ms.join(" "),
                format_count(nodes),
            )?;
            out.flush()?;
            results.push((algorithm, measured));
        }
        writeln!(out)?;
        write_values(out, &results, n)?;
    }
    Ok(())
}

/// Writes, per white turn, the root value and move of the full-width variants (and whether they
/// all agree), of the range-limited search and of the engine.
fn write_values(
    out: &mut dyn Write,
    results: &[(Algorithm, Vec<Measurement>)],
    moves: usize,
) -> anyhow::Result<()> {
    let describe = |m: &Measurement| {
        let best = m.best.map_or_else(|| "none".to_string(), |p| p.to_string());
        format!("{} at {best}", search::describe_score(m.score))
    };
    let mut agree = true;
    let mut lines = Vec::new();
    for turn in 0..moves {
        let full: Vec<&Measurement> = results
            .iter()
            .filter(|(a, _)| a.full_width())
            .map(|(_, m)| &m[turn])
            .collect();
        let mut parts = Vec::new();
        if let Some(first) = full.first() {
            if full.iter().any(|m| m.score != first.score) {
                agree = false;
                let all: Vec<String> = results
                    .iter()
                    .filter(|(a, _)| a.full_width())
                    .map(|(a, m)| format!("{} {}", a.name(), describe(&m[turn])))
                    .collect();
                parts.push(format!("full width DISAGREE: {}", all.join(", ")));
            } else {
                parts.push(format!("full width {}", describe(first)));
            }
        }
        for (algorithm, label) in [
            (Algorithm::RangeHashAlphaBeta, "range limit"),
            (Algorithm::Engine, "engine"),
        ] {
            if let Some((_, m)) = results.iter().find(|(a, _)| *a == algorithm) {
                parts.push(format!("{label} {}", describe(&m[turn])));
            }
        }
        lines.push(format!("- white's move {}: {}", turn + 1, parts.join("; ")));
    }
    writeln!(
        out,
        "Root values for white (ev = static evaluation units){}:",
        if agree {
            "; every full-width variant returned the same value at every position"
        } else {
            "; the full-width variants DISAGREE"
        }
    )?;
    for line in lines {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// Milliseconds with one decimal below 10 ms, whole above.
fn format_ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 10.0 {
        format!("{ms:.1}")
    } else {
        format!("{ms:.0}")
    }
}

/// A count with a k / M / G suffix and three significant digits.
fn format_count(n: u64) -> String {
    let (value, suffix) = match n {
        0..=9_999 => return n.to_string(),
        10_000..=999_999 => (n as f64 / 1e3, "k"),
        1_000_000..=999_999_999 => (n as f64 / 1e6, "M"),
        _ => (n as f64 / 1e9, "G"),
    };
    if value < 10.0 {
        format!("{value:.2}{suffix}")
    } else if value < 100.0 {
        format!("{value:.1}{suffix}")
    } else {
        format!("{value:.0}{suffix}")
    }
}

/// `report_s` seconds ÷ `ours`, as `×N`; `–` when either is too small to divide.
fn format_ratio(report_s: u32, ours: Duration) -> String {
    let ours_s = ours.as_secs_f64();
    if report_s == 0 || ours_s <= 0.0 {
        return "–".to_string();
    }
    let ratio = f64::from(report_s) / ours_s;
    if ratio < 10.0 {
        format!("×{ratio:.1}")
    } else {
        format!("×{ratio:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Stone;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn arguments_parse_and_bad_ones_are_errors() {
        let defaults = parse_args(&[]).expect("no arguments").expect("settings");
        assert_eq!(defaults.depths, vec![3, 4]);
        assert_eq!(defaults.moves, 6);
        assert_eq!(defaults.size, 15);
        assert!(!defaults.all);
        let s = parse_args(&args("--depth 2,5 --moves=3 --size 20 --threads 3 --all"))
            .expect("valid")
            .expect("settings");
        assert_eq!(
            s,
            Settings {
                depths: vec![2, 5],
                moves: 3,
                size: 20,
                threads: 3,
                all: true
            }
        );
        assert_eq!(parse_args(&args("--help")).expect("help"), None);
        for bad in [
            "--depth",
            "--depth x",
            "--depth 3,,4",
            "--depth 0",
            "--moves 0",
            "--moves 8",
            "--threads 0",
            "--size -1",
            "--frobnicate 1",
        ] {
            assert!(parse_args(&args(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn positions_are_white_to_move_after_the_reference_game() {
        for size in [9, 15, 20] {
            let boards = positions(size, max_moves()).expect("the game fits");
            assert_eq!(boards.len(), 7);
            for (turn, b) in boards.iter().enumerate() {
                assert_eq!(b.side_to_move(), Stone::White);
                assert_eq!(b.stone_count(), 2 * turn + 1);
            }
        }
        assert!(positions(7, 6).is_err(), "the game does not fit 7×7");
        // No five on the board: every side still has moves and nobody has won.
        let last = positions(15, max_moves()).expect("fits");
        let table = Arc::new(PatternTable::new(Rule::Freestyle));
        let mut replay = Board::new(15, 15, table).expect("15×15");
        for &(x, y) in REFERENCE_GAME.iter() {
            let p = replay.pos(x, y).expect("on the board");
            assert!(
                !replay.is_winning_move(p, replay.side_to_move()),
                "{p} wins"
            );
            replay.make(p);
        }
        assert_eq!(last[0].stone_count(), 1);
    }

    #[test]
    fn the_report_and_the_skips_follow_the_issue() {
        assert_eq!(
            Algorithm::Minimax.report_seconds(3).map(|r| r[5]),
            Some(544)
        );
        assert_eq!(Algorithm::Minimax.report_seconds(4), None);
        assert_eq!(
            Algorithm::RangeHashAlphaBeta.report_seconds(4),
            Some([0, 1, 1, 2, 2, 2])
        );
        for a in Algorithm::ALL {
            assert_eq!(a.skip_reason(3), None, "{a:?} runs at depth 3");
        }
        assert!(Algorithm::Minimax.skip_reason(4).is_some());
        assert!(Algorithm::OrderedAlphaBeta.skip_reason(4).is_none());
        assert_eq!(Algorithm::ALL.iter().filter(|a| a.full_width()).count(), 7);
    }

    #[test]
    fn a_small_run_prints_every_row_and_the_agreement() {
        let settings = Settings {
            depths: vec![2, 4],
            moves: 2,
            size: 9,
            threads: 2,
            all: false,
        };
        let mut out = Vec::new();
        run(&settings, &mut out).expect("in-memory write");
        let text = String::from_utf8(out).expect("utf-8");
        for a in Algorithm::ALL {
            assert_eq!(
                text.lines()
                    .filter(|l| l.starts_with(&format!("| {} |", a.name())))
                    .count(),
                2,
                "{a:?}:\n{text}"
            );
        }
        assert!(text.contains("### Depth 2") && text.contains("### Depth 4"));
        assert!(text.contains("| minimax | skipped"), "{text}");
        assert_eq!(
            text.matches("every full-width variant returned the same value")
                .count(),
            2,
            "{text}"
        );
        assert_eq!(text.matches("- white's move ").count(), 4);
    }

    #[test]
    fn numbers_are_formatted_compactly() {
        assert_eq!(format_count(9_999), "9999");
        assert_eq!(format_count(73_200), "73.2k");
        assert_eq!(format_count(11_140_000), "11.1M");
        assert_eq!(format_count(2_400_000_000), "2.40G");
        assert_eq!(format_ms(Duration::from_micros(3_250)), "3.2");
        assert_eq!(format_ms(Duration::from_millis(1_205)), "1205");
        assert_eq!(format_ratio(5, Duration::from_millis(100)), "×50");
        assert_eq!(format_ratio(1, Duration::from_millis(400)), "×2.5");
        assert_eq!(format_ratio(0, Duration::from_millis(400)), "–");
    }
}
