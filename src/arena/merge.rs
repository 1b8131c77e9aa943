//! `pbrain-wuzi match merge FILE|DIR…`: the final table of the games in results files.
//!
//! The files are read in the order given (a directory: its `*.jsonl` files by name), each line
//! by line. The match is the one named by the first match line read; the game lines of that
//! match are counted in schedule order through the same [`Summary`] a run uses, so the table,
//! Elo, LOS, pentanomial counts and SPRT state are the ones one run of those games prints (the
//! engine rows too: the times are kept in nanoseconds). What is not counted is reported, file
//! by file, never dropped silently:
//! - a game read a second time (a shard run again, a file given twice): counted once; when the
//!   second copy differs (a replayed game with another result) the first is kept and the
//!   difference is reported as a conflict;
//! - lines of another match (another id: other engines, settings or schedule);
//! - game lines that do not fit their match line (a game number beyond the schedule, a pair
//!   or players that are not the match's, an unknown reason);
//! - lines that are not results lines, and an incomplete last line (a shard still writing).
//!
//! Games of the schedule that no file holds are listed as missing, so a merge while shards still
//! run says how far they got.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    fs,
    io::{self, Write},
    path::{Path, PathBuf},
};

use anyhow::Context;

use super::{
    results::{parse_line, GameLine, Line, MatchLine},
    sprt_header, sprt_verdict,
    stats::Sprt,
    summary::Summary,
    verdict_text,
};
use crate::rules::Rule;

/// The `match merge --help` text.
pub const HELP: &str = "\
pbrain-wuzi match merge: the final table of the games in `match --results` files.

USAGE:
    pbrain-wuzi match merge [--sprt E0,E1[,A,B]] FILE|DIR...

Reads every results file (a directory: its *.jsonl files, by name) and prints the final table,
Elo, LOS, pentanomial counts and, with --sprt, the SPRT state that one run of those games would
print. The match is the one of the first match line read. Reported and not counted: games read
twice (counted once; a second copy with another result is a conflict, the first is kept), lines
of another match, game lines that do not fit their match, lines that are not results lines.
Games of the schedule found in no file are listed as missing: merging while shards still run
shows how far they are and what the SPRT says so far.

OPTIONS:
    --sprt E0,E1[,A,B]      as `pbrain-wuzi match --sprt` (two engines only): the LLR of the
                            merged games, its bounds and the verdict (none before 20 games)
    -h, --help              this text

EXAMPLE:
    pbrain-wuzi match merge --sprt 0,10 results/
";

/// What a merge counted and what it left out.
#[derive(Clone, Debug, Default)]
pub struct Merged {
    /// The totals of the counted games.
    pub summary: Summary,
    /// The match line the merge followed.
    pub header: Option<MatchLine>,
    /// Games counted.
    pub counted: usize,
    /// Game lines read again with the same content.
    pub duplicates: usize,
    /// Game lines read again with another content (the first copy counts).
    pub conflicts: usize,
    /// Lines of another match.
    pub foreign: usize,
    /// Game lines that do not fit the match line, and lines that are not results lines.
    pub invalid: usize,
    /// Games of the schedule in no file.
    pub missing: usize,
}

/// What is wrong with one file, gathered for one report per file.
#[derive(Default)]
struct FileReport {
    duplicates: Vec<usize>,
    conflicts: Vec<(usize, String)>,
    foreign: BTreeMap<String, usize>,
    invalid: Vec<String>,
    partial: bool,
}

/// One file as read: its parsed lines (with their line numbers) and what was wrong in it.
struct ReadFile {
    path: PathBuf,
    lines: Vec<(usize, Line)>,
    report: FileReport,
}

/// Entry point of `pbrain-wuzi match merge`.
pub fn main(args: &[String]) -> anyhow::Result<()> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut sprt = None;
    let mut files = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        match arg {
            "-h" | "--help" | "help" => {
                out.write_all(HELP.as_bytes())?;
                return Ok(());
            }
            "--sprt" => {
                let v = args
                    .get(i)
                    .ok_or_else(|| anyhow::anyhow!("match merge: --sprt needs a value"))?;
                i += 1;
                sprt = Some(Sprt::parse(v).map_err(|e| anyhow::anyhow!("match merge: {e}"))?);
            }
            _ if arg.starts_with("--sprt=") => {
                let v = &arg["--sprt=".len()..];
                sprt = Some(Sprt::parse(v).map_err(|e| anyhow::anyhow!("match merge: {e}"))?);
            }
            _ if arg.starts_with("--") => {
                anyhow::bail!("match merge: unknown option `{arg}` (see --help)")
            }
            _ => files.push(PathBuf::from(arg)),
        }
    }
    if files.is_empty() {
        anyhow::bail!("match merge: no results file given (see --help)");
    }
    run(&files, sprt.as_ref(), &mut out)?;
    Ok(())
}

/// True for the files a directory argument stands for.
fn is_results_file(path: &Path) -> bool {
    path.extension().map_or(false, |x| x == "jsonl")
}

/// The files named by `paths`: a directory stands for its `*.jsonl` files, sorted by name.
fn expand(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found: Vec<PathBuf> = fs::read_dir(path)
                .with_context(|| format!("cannot read directory `{}`", path.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && is_results_file(p))
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

/// Numbers as ranges: `1-3, 7, 9-10`, at most `limit` ranges, then `…`.
fn ranges(numbers: &[usize], limit: usize) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < numbers.len() {
        let mut j = i;
        while j + 1 < numbers.len() && numbers[j + 1] == numbers[j] + 1 {
            j += 1;
        }
        if parts.len() == limit {
            parts.push("…".to_string());
            break;
        }
        parts.push(if i == j {
            numbers[i].to_string()
        } else {
            format!("{}-{}", numbers[i], numbers[j])
        });
        i = j + 1;
    }
    parts.join(", ")
}

/// Why `game` does not belong to `header`'s match, if it does not.
fn misfit(game: &GameLine, header: &MatchLine) -> Option<String> {
    if game.game == 0 || game.game > header.games {
        return Some(format!(
            "game {} is not in the schedule of {} games",
            game.game, header.games
        ));
    }
    let pair = match header.pairs.get(game.pair) {
        Some(p) => p,
        None => return Some(format!("game {}: no pair {}", game.game, game.pair)),
    };
    let [b, w] = game.players;
    if !((b == pair[0] && w == pair[1]) || (b == pair[1] && w == pair[0])) {
        return Some(format!(
            "game {}: players {b}, {w} are not pair {}",
            game.game, game.pair
        ));
    }
    if header.engines.get(b) != Some(&game.black) || header.engines.get(w) != Some(&game.white) {
        return Some(format!(
            "game {}: {} - {} are not the match's engines {b}, {w}",
            game.game, game.black, game.white
        ));
    }
    if let Err(e) = game.tally() {
        return Some(format!("game {}: {e}", game.game));
    }
    None
}

/// Merges the results files `paths` and prints the report and the final table to `out`.
pub fn run(paths: &[PathBuf], sprt: Option<&Sprt>, out: &mut dyn Write) -> anyhow::Result<Merged> {
    let files = expand(paths)?;
    if files.is_empty() {
        anyhow::bail!("match merge: no results files (*.jsonl) found");
    }
    // Read everything first: a match line may come after game lines (files in any order).
    let mut read: Vec<ReadFile> = Vec::new();
    let mut header: Option<MatchLine> = None;
    for path in &files {
        let bytes = fs::read(path).with_context(|| format!("cannot read `{}`", path.display()))?;
        let text = String::from_utf8_lossy(&bytes);
        let ends_whole = text.ends_with('\n');
        let mut lines = Vec::new();
        let mut report = FileReport::default();
        let all: Vec<&str> = text.lines().collect();
        for (i, raw) in all.iter().enumerate() {
            let raw = raw.trim();
            if raw.is_empty() {
                continue;
            }
            match parse_line(raw) {
                Ok(line) => {
                    if let (None, Line::Match(m)) = (&header, &line) {
                        header = Some(m.clone());
                    }
                    lines.push((i + 1, line));
                }
                Err(_) if i + 1 == all.len() && !ends_whole => report.partial = true,
                Err(e) => report
                    .invalid
                    .push(format!("line {}: not a results line ({e})", i + 1)),
            }
        }
        read.push(ReadFile {
            path: path.clone(),
            lines,
            report,
        });
    }
    let header = match header {
        Some(h) => h,
        None => anyhow::bail!(
            "match merge: no match line in {} file(s); are they `match --results` files?",
            files.len()
        ),
    };
    if sprt.is_some() && header.pairs.len() != 1 {
        anyhow::bail!(
            "match merge: --sprt needs a match of two engines (this one has {} pairs)",
            header.pairs.len()
        );
    }
    let rule = Rule::from_name(&header.rule.to_string())
        .map(Rule::name)
        .unwrap_or("unknown rule");

    // game number → (the line counted, where it was read)
    let mut counted: HashMap<usize, (GameLine, String)> = HashMap::new();
    let mut shards: BTreeSet<Option<[usize; 2]>> = BTreeSet::new();
    let mut merged = Merged::default();
    for file in &mut read {
        let (path, report) = (&file.path, &mut file.report);
        for (number, line) in file.lines.drain(..) {
            let game = match line {
                Line::Match(m) => {
                    if m.id == header.id {
                        shards.insert(m.shard);
                    } else {
                        *report.foreign.entry(m.id).or_insert(0) += 1;
                    }
                    continue;
                }
                Line::Game(g) => g,
            };
            if game.id != header.id {
                *report.foreign.entry(game.id).or_insert(0) += 1;
                continue;
            }
            if let Some(why) = misfit(&game, &header) {
                report.invalid.push(format!("line {number}: {why}"));
                continue;
            }
            match counted.get(&game.game) {
                Some((first, _)) if *first == game => report.duplicates.push(game.game),
                Some((_, at)) => report.conflicts.push((game.game, at.clone())),
                None => {
                    let at = format!("{}:{number}", path.display());
                    counted.insert(game.game, (game, at));
                }
            }
        }
    }

    let shard_text: Vec<String> = shards
        .iter()
        .map(|s| match s {
            Some([k, n]) => format!("{k}/{n}"),
            None => "whole run".to_string(),
        })
        .collect();
    writeln!(
        out,
        "Merge: match {}, {} games in the schedule, {} {}×{}, {} opening(s), {}, seed {}; \
         {} file(s), shards: {}",
        header.id,
        header.games,
        rule,
        header.size,
        header.size,
        header.openings,
        {
            let mut v = header.time_controls.clone();
            v.dedup();
            v.join(" / ")
        },
        header.seed,
        files.len(),
        if shard_text.is_empty() {
            "-".to_string()
        } else {
            shard_text.join(" ")
        }
    )?;
    for ReadFile { path, report, .. } in &read {
        let name = path.display();
        if !report.duplicates.is_empty() {
            merged.duplicates += report.duplicates.len();
            let mut games = report.duplicates.clone();
            games.sort_unstable();
            writeln!(
                out,
                "note: {name}: {} game(s) read before, counted once: {}",
                games.len(),
                ranges(&games, 10)
            )?;
        }
        for (game, at) in &report.conflicts {
            merged.conflicts += 1;
            writeln!(
                out,
                "note: {name}: game {game} differs from the copy read at {at}; that one counts"
            )?;
        }
        for (id, n) in &report.foreign {
            merged.foreign += n;
            writeln!(
                out,
                "note: {name}: {n} line(s) of another match ({id}), not counted"
            )?;
        }
        for why in &report.invalid {
            merged.invalid += 1;
            writeln!(out, "note: {name}: {why}; not counted")?;
        }
        if report.partial {
            writeln!(
                out,
                "note: {name}: the last line is incomplete (still being written?); not counted"
            )?;
        }
    }
    let mut games: Vec<&GameLine> = counted.values().map(|(g, _)| g).collect();
    games.sort_by_key(|g| g.game);
    let have: BTreeSet<usize> = games.iter().map(|g| g.game).collect();
    let missing: Vec<usize> = (1..=header.games).filter(|n| !have.contains(n)).collect();
    if !missing.is_empty() {
        writeln!(
            out,
            "Missing: {} of {} games in no file: {}",
            missing.len(),
            header.games,
            ranges(&missing, 20)
        )?;
    }
    if let Some(sprt) = sprt {
        writeln!(out, "{}", sprt_header(sprt, header.repeat))?;
    }

    let pairs: Vec<(usize, usize)> = header.pairs.iter().map(|p| (p[0], p[1])).collect();
    let mut summary = Summary::new(&header.engines, &pairs);
    for game in &games {
        // `misfit` checked that the tally can be made.
        if let Ok(tally) = game.tally() {
            summary.add_tally(&tally);
        }
    }
    writeln!(
        out,
        "\nMerged {} of {} games ({} {}×{}).",
        summary.games, header.games, rule, header.size, header.size
    )?;
    if let Some(sprt) = sprt {
        let llr = summary.llr(sprt, header.repeat);
        let verdict = sprt_verdict(sprt, llr, summary.games);
        summary.sprt = Some((llr, verdict));
        let (lo, hi) = sprt.bounds();
        writeln!(
            out,
            "SPRT: LLR {llr:.2} [{lo:.2}, {hi:.2}]: {}",
            verdict_text(sprt, verdict)
        )?;
    }
    writeln!(out, "{}", summary.table())?;
    out.flush()?;
    merged.counted = summary.games;
    merged.missing = missing.len();
    merged.summary = summary;
    merged.header = Some(header);
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_compact() {
        assert_eq!(ranges(&[1, 2, 3, 7, 9, 10], 10), "1-3, 7, 9-10");
        assert_eq!(ranges(&[1, 3, 5, 7], 2), "1, 3, …");
        assert_eq!(ranges(&[], 2), "");
    }
}
