//! Command line of `pbrain-wuzi match`: the options, their parsing (by hand) and `--help`.

use std::path::{Path, PathBuf};

use super::{
    clock::{parse_duration_ms, TimeControl},
    engine::EngineSpec,
    openings::Format,
    record::RecordFormat,
    stats::Sprt,
};
use crate::rules::Rule;

/// Default `INFO max_memory` (Gomocup's 350 MB).
pub const DEFAULT_MEMORY: &str = "367001600";
/// Default per-move limit when no time option is given.
pub const DEFAULT_TURN_MS: u64 = 5000;
/// Default tolerance.
pub const DEFAULT_TOLERANCE_MS: u64 = 1000;
/// Default time for the ABOUT and START answers.
pub const DEFAULT_INIT_MS: u64 = 5000;

/// The full `--help` text.
pub const HELP: &str = "\
pbrain-wuzi match: play Gomocup brains (any pbrain-* program) against each other.

USAGE:
    pbrain-wuzi match [OPTIONS] --engine ENGINE... --engine ENGINE... [--engine ENGINE...]

ENGINES (two or more; each --engine is followed by KEY=VALUE words up to the next option):
    --engine cmd=PATH [KEY=VALUE...]   an engine; a first word without `=` is taken as cmd
        cmd=PATH [ARGS]     program to run, with arguments split on spaces (quote the word)
        arg=ARG             one more argument, kept verbatim (may contain spaces)
        name=NAME           name in reports and records (default: file name of cmd;
                            duplicates get -2, -3, …)
        dir=DIR             working directory (default: the arena's)
        threads=N           INFO thread_num N
        memory=BYTES        INFO max_memory BYTES (default 367001600; 0 = unlimited)
        depth=N             INFO max_depth N
        nodes=N             INFO max_node N
        option.KEY=VALUE    INFO KEY VALUE (any key, sent after START like the others)
        turn=T game=T inc=T this engine's time control (overrides --turn/--game/--inc)
    --each KEY=VALUE...     the same keys, applied to every engine (an engine's own keys win)
    --gauntlet              the first engine plays each other engine (default: every pair)

GAMES:
    --rule R                0 freestyle (default), 1 standard (exact five), 4 renju,
                            8 caro (overlines win), 9 caro (exact five); names work too
    --size N                board size N×N (default 15)
    --openings FILE         opening file, one opening per line (default: empty board)
    --openings-format F     auto (default: per line), offset (Gomocup `dx,dy, …` from the
                            centre size/2) or pos (c-gomoku-cli `h8i9j7`, letter = x, 1 = y0)
    --order O               sequential (default) or random (shuffled each round, see --seed)
    --seed N                seed of the random order (default: from the clock; printed)
    --symmetry              play each opening in its distinct 8 board symmetries
    --no-repeat             play each opening once (default: twice, colours swapped)
    --games N               games per pair of engines (default: one round)
    --rounds N              rounds per pair; a round plays every opening once (twice with
                            colours swapped); --games, when given, caps the total
    --concurrency N         games played at the same time (default 1); each game has its own
                            engine processes, started once and reused (START each game)
    --draw-after N          draw when N stones are on the board (default: full board only;
                            the Gomocup judge draws renju at size² − 25, 200 on 15×15)
    --send-board            send the whole BOARD before every move instead of TURN

TIME (T = milliseconds, or with a unit: 250ms, 1.5s, 2m):
    --turn T                limit per move, sent as INFO timeout_turn (default 5s unless
                            --game is given; 0 = none)
    --game T                limit per game and engine, sent as INFO timeout_match; the
                            engine is told INFO time_left before each move (default 0 = none)
    --inc T                 increment added to the game clock at each move (default 0)
    --tolerance T           grace after a move's limit (default 1s): at the limit the engine
                            gets YXSTOP, at limit + tolerance it is killed and loses on time;
                            the arena measures every answer's wall time itself
    --init-time T           time for the ABOUT and START answers (default 5s)

RESULTS:
    --sprt E0,E1[,A,B]      sequential test of H0 elo=E0 against H1 elo=E1 (logistic Elo,
                            alpha A and beta B default 0.05; two engines only): the LLR and its
                            bounds are printed after every game and the match stops at a
                            verdict. GSPRT with the normal approximation (as fishtest), on
                            game pairs (pentanomial) unless --no-repeat (trinomial); no
                            verdict before 20 games
    --sgf FILE              write every game to FILE (Renju SGF, GM[4])
    --psq FILE              write every game to FILE (Piskvork PSQ blocks)
    --log FILE              log every line sent to and received from the engines
    --results FILE          append one JSON line per finished game to FILE (engines, opening,
                            colours, result and reason, moves, times, engine pair and game
                            pair), after one line describing the match; `match merge` reads
                            such files back
    -h, --help              this text

SHARDS (one match spread over several runs or machines):
    --shard K/N             play only the K-th of N parts of the schedule (K = 1..N): the
                            game pairs of every N-th opening slot, from the K-th on, with the
                            same game numbers, openings and colours as the whole run; needs
                            --results, and --seed with --order random; not with --sprt (each
                            shard plays its part whole)
    pbrain-wuzi match merge [--sprt E0,E1[,A,B]] FILE|DIR...
                            the final table, Elo, LOS, pentanomial counts and SPRT state of the
                            games in results files (a directory: its *.jsonl files), as one
                            run of those games prints them; duplicated games are counted once
                            and lines of another match are left out, both reported
                            (pbrain-wuzi match merge --help)

Reasons a game ends: five, renju foul (black's forbidden move loses), full board, draw
after N stones (draws), and the forfeits: time forfeit, crash, illegal move (off the
board), occupied square, unparsable answer, no answer (to START). A progress line follows
every game (W-L-D, score, Elo ± 95%); the final table gives per pair W-L-D, score, Elo with
its 95% interval, LOS, the pentanomial counts of game pairs, the reasons with counts, and per
engine the average and the slowest answer, process starts and START retries. An engine that
answers START with ERROR, or not at all, is sent START once more after 0.5 s (restarted first
if it had to be killed); when that fails too, it loses the game by `no answer`.

EXAMPLE:
    pbrain-wuzi match --engine cmd=./new name=new --engine cmd=./old name=old \\
        --rule 0 --size 15 --turn 100 --games 20 --concurrency 2 \\
        --openings openings.txt --order random --sgf games.sgf
";

/// Opening order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// File order.
    Sequential,
    /// Shuffled with the seed, again each round.
    Random,
}

/// Everything `pbrain-wuzi match` was asked to do.
#[derive(Clone, Debug)]
pub struct Config {
    /// The engines, in command-line order.
    pub engines: Vec<EngineSpec>,
    /// First engine against each other one (instead of every pair).
    pub gauntlet: bool,
    /// Game rule.
    pub rule: Rule,
    /// Board size.
    pub size: usize,
    /// Opening file.
    pub openings: Option<PathBuf>,
    /// Its format.
    pub openings_format: Format,
    /// Opening order.
    pub order: Order,
    /// Seed for the random order.
    pub seed: u64,
    /// Expand openings by the board symmetries.
    pub symmetry: bool,
    /// Play each opening with both colours.
    pub repeat: bool,
    /// Games per pair.
    pub games: Option<u32>,
    /// Rounds per pair.
    pub rounds: Option<u32>,
    /// Parallel games.
    pub concurrency: usize,
    /// Grace after a move's limit (ms).
    pub tolerance_ms: u64,
    /// Time for ABOUT and START (ms).
    pub init_ms: u64,
    /// Draw after this many stones.
    pub draw_after: Option<usize>,
    /// Full BOARD before every move.
    pub send_board: bool,
    /// SPRT parameters.
    pub sprt: Option<Sprt>,
    /// Game record file and format.
    pub records: Option<(PathBuf, RecordFormat)>,
    /// Engine I/O log.
    pub log: Option<PathBuf>,
    /// Results file (JSON lines).
    pub results: Option<PathBuf>,
    /// `--shard K/N`: (K, N), 1 ≤ K ≤ N.
    pub shard: Option<(usize, usize)>,
}

/// Result of parsing the command line.
#[derive(Debug)]
pub enum Parsed {
    /// Run this match.
    Run(Box<Config>),
    /// Print the help text.
    Help,
}

/// Engine keys before defaults are resolved.
#[derive(Clone, Debug, Default)]
struct RawEngine {
    program: Option<String>,
    args: Vec<String>,
    name: Option<String>,
    dir: Option<PathBuf>,
    infos: Vec<(String, String)>,
    memory: Option<String>,
    threads: Option<String>,
    depth: Option<String>,
    nodes: Option<String>,
    turn: Option<u64>,
    game: Option<u64>,
    inc: Option<u64>,
}

fn number<T: std::str::FromStr>(option: &str, value: &str) -> Result<T, String> {
    value
        .trim()
        .parse::<T>()
        .map_err(|_| format!("{option}: `{value}` is not a valid number"))
}

fn apply_engine_word(raw: &mut RawEngine, word: &str, first: bool) -> Result<(), String> {
    let (key, value) = match word.split_once('=') {
        Some(kv) => kv,
        None if first => ("cmd", word),
        None => return Err(format!("engine option `{word}`: expected KEY=VALUE")),
    };
    let duration = |v: &str| parse_duration_ms(v).map_err(|e| format!("{key}: {e}"));
    match key {
        "cmd" => {
            let mut parts = value.split_whitespace().map(str::to_string);
            raw.program = parts.next();
            raw.args = parts.chain(std::mem::take(&mut raw.args)).collect();
            if raw.program.is_none() {
                return Err("cmd= needs a program".to_string());
            }
        }
        "arg" => raw.args.push(value.to_string()),
        "name" => raw.name = Some(value.to_string()),
        "dir" => raw.dir = Some(PathBuf::from(value)),
        "threads" => raw.threads = Some(number::<u64>("threads", value)?.to_string()),
        "memory" => raw.memory = Some(number::<u64>("memory", value)?.to_string()),
        "depth" => raw.depth = Some(number::<u64>("depth", value)?.to_string()),
        "nodes" => raw.nodes = Some(number::<u64>("nodes", value)?.to_string()),
        "turn" => raw.turn = Some(duration(value)?),
        "game" => raw.game = Some(duration(value)?),
        "inc" => raw.inc = Some(duration(value)?),
        _ => match key.strip_prefix("option.") {
            Some(k) if !k.is_empty() && !k.contains(char::is_whitespace) => {
                raw.infos.push((k.to_string(), value.to_string()));
            }
            _ => return Err(format!("unknown engine option `{key}` (see --help)")),
        },
    }
    Ok(())
}

/// Merges `each` (defaults for every engine) under `own`.
fn merge(each: &RawEngine, own: &RawEngine) -> RawEngine {
    let pick = |a: &Option<String>, b: &Option<String>| a.clone().or_else(|| b.clone());
    let mut infos = each.infos.clone();
    for (k, v) in &own.infos {
        infos.retain(|(key, _)| key != k);
        infos.push((k.clone(), v.clone()));
    }
    RawEngine {
        program: pick(&own.program, &each.program),
        args: if own.program.is_some() {
            own.args.clone()
        } else {
            each.args.clone()
        },
        name: own.name.clone(),
        dir: own.dir.clone().or_else(|| each.dir.clone()),
        infos,
        memory: pick(&own.memory, &each.memory),
        threads: pick(&own.threads, &each.threads),
        depth: pick(&own.depth, &each.depth),
        nodes: pick(&own.nodes, &each.nodes),
        turn: own.turn.or(each.turn),
        game: own.game.or(each.game),
        inc: own.inc.or(each.inc),
    }
}

fn default_name(program: &str) -> String {
    Path::new(program)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| program.to_string())
}

/// The engine described by `raw` (the `n`-th on the command line, for messages), with `global`
/// as the time control its own keys do not override.
fn spec_from_raw(raw: &RawEngine, global: TimeControl, n: usize) -> Result<EngineSpec, String> {
    let program = raw
        .program
        .clone()
        .ok_or_else(|| format!("engine {}: cmd= is missing", n + 1))?;
    if program.contains('/') && !Path::new(&program).exists() {
        return Err(format!("engine {}: `{program}` does not exist", n + 1));
    }
    let name = raw.name.clone().unwrap_or_else(|| default_name(&program));
    let mut infos = vec![(
        "max_memory".to_string(),
        raw.memory
            .clone()
            .unwrap_or_else(|| DEFAULT_MEMORY.to_string()),
    )];
    for (key, value) in [
        ("thread_num", &raw.threads),
        ("max_depth", &raw.depth),
        ("max_node", &raw.nodes),
    ] {
        if let Some(v) = value {
            infos.push((key.to_string(), v.clone()));
        }
    }
    infos.extend(raw.infos.iter().cloned());
    let tc = TimeControl {
        turn_ms: raw.turn.unwrap_or(global.turn_ms),
        game_ms: raw.game.unwrap_or(global.game_ms),
        inc_ms: raw.inc.unwrap_or(global.inc_ms),
    };
    if tc.is_unlimited() {
        return Err(format!(
            "engine {name}: no time limit (a turn or game limit is needed so a hanging \
             engine can be forfeited)"
        ));
    }
    Ok(EngineSpec {
        name,
        program,
        args: raw.args.clone(),
        dir: raw.dir.clone(),
        infos,
        tc,
    })
}

/// Parses the words of one `--engine` on its own (`cmd=PATH name=NAME …`, the keys of `match
/// --help`), as `pbrain-wuzi play` takes them. An engine without time keys gets
/// [`DEFAULT_TURN_MS`] per move.
pub fn parse_engine(words: &[String]) -> Result<EngineSpec, String> {
    if words.is_empty() {
        return Err("--engine needs KEY=VALUE words".to_string());
    }
    let mut raw = RawEngine::default();
    for (i, word) in words.iter().enumerate() {
        apply_engine_word(&mut raw, word, i == 0)?;
    }
    let global = TimeControl {
        turn_ms: DEFAULT_TURN_MS,
        game_ms: 0,
        inc_ms: 0,
    };
    spec_from_raw(&raw, global, 0)
}

/// Parses `K/N` (1 ≤ K ≤ N).
fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("--shard: expected K/N with 1 <= K <= N, got `{text}`");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let k: usize = k.trim().parse().map_err(|_| bad())?;
    let n: usize = n.trim().parse().map_err(|_| bad())?;
    if k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// Parses the arguments after `match`.
pub fn parse(args: &[String]) -> Result<Parsed, String> {
    let mut raw_engines: Vec<RawEngine> = Vec::new();
    let mut each = RawEngine::default();
    let mut gauntlet = false;
    let mut rule = Rule::Freestyle;
    let mut size = 15usize;
    let mut openings = None;
    let mut openings_format = Format::Auto;
    let mut order = Order::Sequential;
    let mut seed = None;
    let mut symmetry = false;
    let mut repeat = true;
    let mut games = None;
    let mut rounds = None;
    let mut concurrency = 1usize;
    let mut turn = None;
    let mut game = None;
    let mut inc = None;
    let mut tolerance_ms = DEFAULT_TOLERANCE_MS;
    let mut init_ms = DEFAULT_INIT_MS;
    let mut draw_after = None;
    let mut send_board = false;
    let mut sprt = None;
    let mut records = None;
    let mut log = None;
    let mut results = None;
    let mut shard = None;

    let mut i = 0;
    while i < args.len() {
        let option = args[i].as_str();
        i += 1;
        // Options may also be written --key=value.
        let (option, inline) = match option.split_once('=') {
            Some((o, v)) if o.starts_with("--") => (o, Some(v.to_string())),
            _ => (option, None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            if let Some(v) = inline.clone() {
                return Ok(v);
            }
            let v = args
                .get(i)
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))?;
            i += 1;
            Ok(v)
        };
        match option {
            "-h" | "--help" | "help" => return Ok(Parsed::Help),
            "--engine" | "--each" => {
                let mut raw = RawEngine::default();
                let mut first = true;
                let mut words = 0;
                if let Some(v) = inline.clone() {
                    apply_engine_word(&mut raw, &v, true)?;
                    first = false;
                    words += 1;
                }
                while i < args.len() && !args[i].starts_with("--") {
                    apply_engine_word(&mut raw, &args[i], first)?;
                    first = false;
                    words += 1;
                    i += 1;
                }
                if words == 0 {
                    return Err(format!("{option} needs KEY=VALUE words"));
                }
                if option == "--engine" {
                    raw_engines.push(raw);
                } else {
                    each = merge(&each, &raw);
                }
            }
            "--gauntlet" => gauntlet = true,
            "--rule" => {
                let v = value(option)?;
                rule = Rule::from_name(&v).ok_or_else(|| {
                    format!("--rule: `{v}` is not one of 0, 1, 4, 8, 9 (or a rule name)")
                })?;
            }
            "--size" => size = number(option, &value(option)?)?,
            "--openings" => openings = Some(PathBuf::from(value(option)?)),
            "--openings-format" => {
                let v = value(option)?;
                openings_format = Format::parse(&v).ok_or_else(|| {
                    format!("--openings-format: `{v}` is not auto, offset or pos")
                })?;
            }
            "--order" => {
                order = match value(option)?.as_str() {
                    "sequential" | "seq" => Order::Sequential,
                    "random" => Order::Random,
                    other => return Err(format!("--order: `{other}` is not sequential or random")),
                }
            }
            "--seed" => seed = Some(number(option, &value(option)?)?),
            "--symmetry" | "--symmetries" => symmetry = true,
            "--no-repeat" => repeat = false,
            "--repeat" => repeat = true,
            "--games" => games = Some(number(option, &value(option)?)?),
            "--rounds" => rounds = Some(number(option, &value(option)?)?),
            "--concurrency" => concurrency = number(option, &value(option)?)?,
            "--turn" => turn = Some(parse_duration_ms(&value(option)?)?),
            "--game" => game = Some(parse_duration_ms(&value(option)?)?),
            "--inc" => inc = Some(parse_duration_ms(&value(option)?)?),
            "--tolerance" => tolerance_ms = parse_duration_ms(&value(option)?)?,
            "--init-time" => init_ms = parse_duration_ms(&value(option)?)?,
            "--draw-after" => draw_after = Some(number(option, &value(option)?)?),
            "--send-board" => send_board = true,
            "--sprt" => sprt = Some(Sprt::parse(&value(option)?)?),
            "--sgf" => records = Some((PathBuf::from(value(option)?), RecordFormat::Sgf)),
            "--psq" => records = Some((PathBuf::from(value(option)?), RecordFormat::Psq)),
            "--log" => log = Some(PathBuf::from(value(option)?)),
            "--results" => results = Some(PathBuf::from(value(option)?)),
            "--shard" => shard = Some(parse_shard(&value(option)?)?),
            other => return Err(format!("unknown option `{other}` (see --help)")),
        }
    }

    if raw_engines.len() < 2 {
        return Err("at least two --engine are needed (see --help)".to_string());
    }
    if !(crate::board::MIN_SIZE..=crate::board::MAX_SIZE).contains(&size) {
        return Err(format!(
            "--size {size}: supported sizes are {}..{}",
            crate::board::MIN_SIZE,
            crate::board::MAX_SIZE
        ));
    }
    if concurrency == 0 {
        return Err("--concurrency must be at least 1".to_string());
    }
    if games == Some(0) || rounds == Some(0) {
        return Err("--games and --rounds must be at least 1".to_string());
    }
    if sprt.is_some() && raw_engines.len() != 2 {
        return Err("--sprt needs exactly two engines".to_string());
    }
    if draw_after == Some(0) {
        return Err("--draw-after must be at least 1".to_string());
    }
    if shard.is_some() {
        if results.is_none() {
            return Err("--shard needs --results FILE (what `match merge` reads)".to_string());
        }
        if order == Order::Random && seed.is_none() {
            return Err(
                "--shard with --order random needs --seed: every shard must build \
                        the same schedule"
                    .to_string(),
            );
        }
        if sprt.is_some() {
            return Err(
                "--shard plays its part whole; give --sprt to `match merge` instead".to_string(),
            );
        }
    }
    let default_turn = if game.is_some() { 0 } else { DEFAULT_TURN_MS };
    let global = TimeControl {
        turn_ms: turn.unwrap_or(default_turn),
        game_ms: game.unwrap_or(0),
        inc_ms: inc.unwrap_or(0),
    };

    let mut engines: Vec<EngineSpec> = Vec::new();
    for (n, own) in raw_engines.iter().enumerate() {
        let mut spec = spec_from_raw(&merge(&each, own), global, n)?;
        if engines.iter().any(|e| e.name == spec.name) {
            let base = spec.name.clone();
            let mut k = 2;
            while engines.iter().any(|e| e.name == spec.name) {
                spec.name = format!("{base}-{k}");
                k += 1;
            }
        }
        engines.push(spec);
    }
    let seed = seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64 % 1_000_000_007)
            .unwrap_or(1)
    });
    Ok(Parsed::Run(Box::new(Config {
        engines,
        gauntlet,
        rule,
        size,
        openings,
        openings_format,
        order,
        seed,
        symmetry,
        repeat,
        games,
        rounds,
        concurrency,
        tolerance_ms,
        init_ms,
        draw_after,
        send_board,
        sprt,
        records,
        log,
        results,
        shard,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    fn config(text: &str) -> Config {
        match parse(&args(text)) {
            Ok(Parsed::Run(c)) => *c,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn engines_and_defaults() {
        let c = config(
            "--engine cmd=bash name=a threads=2 option.hash_size=1024 --engine bash \
             depth=3 nodes=100 memory=0 --each turn=200",
        );
        assert_eq!(c.engines.len(), 2);
        let a = &c.engines[0];
        assert_eq!(a.name, "a");
        assert_eq!(a.program, "bash");
        assert_eq!(
            a.infos,
            vec![
                ("max_memory".to_string(), DEFAULT_MEMORY.to_string()),
                ("thread_num".to_string(), "2".to_string()),
                ("hash_size".to_string(), "1024".to_string()),
            ]
        );
        assert_eq!(a.tc.turn_ms, 200);
        let b = &c.engines[1];
        assert_eq!(b.name, "bash");
        assert_eq!(b.infos[0], ("max_memory".to_string(), "0".to_string()));
        assert!(b
            .infos
            .contains(&("max_depth".to_string(), "3".to_string())));
        assert!(b
            .infos
            .contains(&("max_node".to_string(), "100".to_string())));
        assert_eq!(c.rule, Rule::Freestyle);
        assert_eq!(c.size, 15);
        assert!(c.repeat);
        assert_eq!(c.concurrency, 1);
    }

    #[test]
    fn duplicate_names_and_args() {
        let mut a = args("--engine --engine");
        a.insert(1, "cmd=bash -c true".to_string());
        a.push("cmd=bash".to_string());
        a.push("arg=two words".to_string());
        let c = match parse(&a) {
            Ok(Parsed::Run(c)) => *c,
            other => panic!("{other:?}"),
        };
        assert_eq!(c.engines[0].args, vec!["-c", "true"]);
        assert_eq!(c.engines[1].args, vec!["two words"]);
        assert_eq!(c.engines[0].name, "bash");
        assert_eq!(c.engines[1].name, "bash-2");
    }

    #[test]
    fn match_options() {
        let c = config(
            "--engine bash --engine bash --rule renju --size 20 --turn 1.5s --game 1m \
             --inc 100 --tolerance 300ms --games 10 --concurrency 2 --sprt 0,5 --seed 7 \
             --order random --symmetry --no-repeat --draw-after 200 --sgf x.sgf --gauntlet",
        );
        assert_eq!(c.rule, Rule::Renju);
        assert_eq!(c.size, 20);
        assert_eq!(
            c.engines[0].tc,
            TimeControl {
                turn_ms: 1500,
                game_ms: 60_000,
                inc_ms: 100
            }
        );
        assert_eq!(c.tolerance_ms, 300);
        assert_eq!(c.games, Some(10));
        assert_eq!(c.seed, 7);
        assert_eq!(c.order, Order::Random);
        assert!(c.symmetry && !c.repeat && c.gauntlet);
        assert_eq!(c.draw_after, Some(200));
        assert_eq!(c.records.as_ref().map(|r| r.1), Some(RecordFormat::Sgf));
        assert!(c.sprt.is_some());
        let c = config(
            "--engine bash --engine bash --shard 2/3 --results r.jsonl --order random --seed 1",
        );
        assert_eq!(c.shard, Some((2, 3)));
        assert_eq!(c.results.as_deref(), Some(std::path::Path::new("r.jsonl")));
        let c = config("--engine bash --engine bash --rule=9 --game=10s");
        assert_eq!(c.rule, Rule::Caro);
        assert_eq!(c.engines[1].tc.turn_ms, 0);
    }

    #[test]
    fn errors() {
        for bad in [
            "--engine bash",
            "--engine bash --engine bash --rule 3",
            "--engine bash --engine bash --size 4",
            "--engine bash --engine bash --concurrency 0",
            "--engine bash --engine bash --turn 0",
            "--engine bash --engine bash --engine bash --sprt 0,5",
            "--engine bash --engine bash --frobnicate",
            "--engine bash color=red --engine bash",
            "--engine ./no/such/brain --engine bash",
            "--engine bash --engine bash --games",
            "--engine bash --engine bash --games x",
            "--engine bash --engine bash --shard 1/2",
            "--engine bash --engine bash --shard 3/2 --results r",
            "--engine bash --engine bash --shard 0/2 --results r",
            "--engine bash --engine bash --shard 2 --results r",
            "--engine bash --engine bash --shard 1/2 --results r --order random",
            "--engine bash --engine bash --shard 1/2 --results r --sprt 0,5",
        ] {
            assert!(parse(&args(bad)).is_err(), "{bad}");
        }
        assert!(matches!(parse(&args("--help")), Ok(Parsed::Help)));
    }

    #[test]
    fn help_mentions_every_option() {
        for option in [
            "--engine",
            "--each",
            "--gauntlet",
            "--rule",
            "--size",
            "--openings",
            "--openings-format",
            "--order",
            "--seed",
            "--symmetry",
            "--no-repeat",
            "--games",
            "--rounds",
            "--concurrency",
            "--draw-after",
            "--send-board",
            "--turn",
            "--game",
            "--inc",
            "--tolerance",
            "--init-time",
            "--sprt",
            "--sgf",
            "--psq",
            "--log",
            "--results",
            "--shard",
            "match merge",
            "cmd=",
            "arg=",
            "name=",
            "dir=",
            "threads=",
            "memory=",
            "depth=",
            "nodes=",
            "option.KEY=VALUE",
            "turn=T",
        ] {
            assert!(HELP.contains(option), "{option}");
        }
    }
}
