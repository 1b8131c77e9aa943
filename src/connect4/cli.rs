//! `pbrain-wuzi connect4 …`: the solver on stdin (`solve`), Pons' benchmark sets (`bench`)
//! and the opening book's generation (`book`).

use std::{
    io::{self, BufRead, Write},
    path::{Path, PathBuf},
    time::Instant,
};

use anyhow::{bail, Context};

use super::{
    book,
    solver::{Limits, Mode, Solver, DEFAULT_TABLE_BITS},
    Position,
};

/// `pbrain-wuzi connect4 --help`.
pub const HELP: &str = "\
pbrain-wuzi connect4: a Connect Four solver.

USAGE:
    pbrain-wuzi connect4 solve [--width W] [--height H] [--weak] [--no-book] [--table-bits N]
        Reads positions from stdin, one per line: the columns played from the empty board as
        digits 1..W (a second field, such as an expected score, is ignored; an empty line is
        the empty board). Prints `<moves> <score> <nodes> <microseconds>` per line, the score
        in Pons' convention (0 draw; a win for the side to move scores one plus the discs it
        still holds after its winning disc, 22 - its discs on 7x6; a loss the negative);
        --weak prints 1, 0 or -1. A bad line prints `error: <moves>: <reason>`.
        Default size 7x6; the opening book answers 7x6 positions it holds unless --no-book.
    pbrain-wuzi connect4 bench [DIR] [--limit N] [--book] [--table-bits N]
        Solves Pons' six test sets (Test_L3_R1 … Test_L1_R3 in DIR, default
        ../shared/data/connect4), checks every score, and prints per set the positions, the
        mean microseconds and the mean nodes. --limit N: the first N positions of each set.
        A fresh table for each position; the book is off unless --book.
    pbrain-wuzi connect4 book [--ply N] [--out FILE] [--from FILE] [--table-bits N]
        Regenerates the 7x6 opening book (default 5 discs deep, as embedded, written to
        src/connect4/book-7x6.bin) with our solver (table up to 2^25 buckets, 512 MiB).
        An odd depth N covers the first player's moves up to N - 1 discs, an even one the
        second player's. --from FILE: reuse the scores of an existing book (to deepen it).

--table-bits N: the table has 2^N buckets of 16 bytes (default 22: 64 MiB).
";

/// The six sets, easiest first, with Pons' names.
pub const SETS: [(&str, &str); 6] = [
    ("Test_L3_R1", "End-Easy"),
    ("Test_L2_R1", "Middle-Easy"),
    ("Test_L2_R2", "Middle-Medium"),
    ("Test_L1_R1", "Begin-Easy"),
    ("Test_L1_R2", "Begin-Medium"),
    ("Test_L1_R3", "Begin-Hard"),
];

/// Runs `pbrain-wuzi connect4 ARGS`.
pub fn main(args: &[String]) -> anyhow::Result<()> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let asks_help = args.iter().any(|a| a == "-h" || a == "--help");
    let command = match args.first() {
        Some(c) if !asks_help => c.as_str(),
        _ => "help",
    };
    let result = match command {
        "help" => out.write_all(HELP.as_bytes()).map_err(anyhow::Error::from),
        "solve" => {
            let options = SolveOptions::parse(&args[1..])?;
            let stdin = io::stdin();
            let input = stdin.lock();
            solve_lines(&options, input, &mut out)
        }
        "bench" => bench(&args[1..], &mut out),
        "book" => make_book(&args[1..], &mut out),
        other => bail!("connect4: unknown command `{other}`\n{HELP}"),
    };
    match result {
        Err(e)
            if e.downcast_ref::<io::Error>()
                .map_or(false, |io| io.kind() == io::ErrorKind::BrokenPipe) =>
        {
            Ok(())
        }
        other => other,
    }
}

/// Options of `solve`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolveOptions {
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Win/draw/loss only.
    pub mode: Mode,
    /// Use the opening book.
    pub book: bool,
    /// log2 of the table's buckets.
    pub table_bits: u32,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            width: 7,
            height: 6,
            mode: Mode::Strong,
            book: true,
            table_bits: DEFAULT_TABLE_BITS,
        }
    }
}

fn number<T: std::str::FromStr>(args: &[String], i: usize, name: &str) -> anyhow::Result<T> {
    let text = args
        .get(i)
        .with_context(|| format!("{name} needs a number"))?;
    text.parse()
        .ok()
        .with_context(|| format!("{name}: `{text}` is not a valid number"))
}

fn table_bits(args: &[String], i: usize) -> anyhow::Result<u32> {
    let bits: u32 = number(args, i, "--table-bits")?;
    if !(10..=30).contains(&bits) {
        bail!("--table-bits must be between 10 and 30");
    }
    Ok(bits)
}

impl SolveOptions {
    /// Parses the words after `solve`.
    pub fn parse(args: &[String]) -> anyhow::Result<SolveOptions> {
        let mut options = SolveOptions::default();
        let mut i = 0;
        while i < args.len() {
            match args[i].as_str() {
                "--width" => {
                    options.width = number(args, i + 1, "--width")?;
                    i += 1;
                }
                "--height" => {
                    options.height = number(args, i + 1, "--height")?;
                    i += 1;
                }
                "--table-bits" => {
                    options.table_bits = table_bits(args, i + 1)?;
                    i += 1;
                }
                "--weak" => options.mode = Mode::Weak,
                "--no-book" => options.book = false,
                other => bail!("connect4 solve: unknown option `{other}`\n{HELP}"),
            }
            i += 1;
        }
        if Position::new(options.width, options.height).is_none() {
            bail!(
                "connect4 solve: a {}x{} board is not supported (1 to 9 columns, width × (height + 1) at most 64)",
                options.width,
                options.height
            );
        }
        Ok(options)
    }
}

/// Solves every line of `input` and writes the answers to `out`.
pub fn solve_lines(
    options: &SolveOptions,
    input: impl BufRead,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let mut solver = Solver::new(options.table_bits);
    solver.set_book(options.book);
    for line in input.lines() {
        let line = line?;
        let moves = line.split_whitespace().next().unwrap_or("");
        match Position::from_moves(options.width, options.height, moves) {
            Err(e) => writeln!(out, "error: {moves}: {e}")?,
            Ok(pos) => {
                solver.reset();
                let start = Instant::now();
                let score = solver
                    .solve(&pos, options.mode, Limits::none())
                    .expect("a search without limits finishes");
                let micros = start.elapsed().as_micros();
                writeln!(out, "{moves} {score} {} {micros}", solver.nodes())?;
            }
        }
        out.flush()?;
    }
    Ok(())
}

/// One set's result.
#[derive(Clone, Debug, PartialEq)]
pub struct SetResult {
    /// Positions solved.
    pub positions: usize,
    /// Positions whose score differed from the file's.
    pub wrong: Vec<String>,
    /// Mean microseconds per position.
    pub mean_micros: f64,
    /// Mean nodes per position.
    pub mean_nodes: f64,
}

/// Solves the first `limit` positions of a `<moves> <score>` file, each with a fresh table.
pub fn run_set(solver: &mut Solver, path: &Path, limit: usize) -> anyhow::Result<SetResult> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut positions = 0;
    let mut wrong = Vec::new();
    let (mut micros, mut nodes) = (0f64, 0f64);
    for line in text.lines().filter(|l| !l.trim().is_empty()).take(limit) {
        let mut fields = line.split_whitespace();
        let moves = fields.next().unwrap_or("");
        let expected: i32 = match fields.next().map(str::parse) {
            Some(Ok(s)) => s,
            _ => bail!("{}: `{line}` has no score", path.display()),
        };
        let pos = Position::from_moves(7, 6, moves)
            .map_err(|e| anyhow::anyhow!("{}: `{moves}`: {e}", path.display()))?;
        solver.prepare(7, 6);
        solver.reset();
        let start = Instant::now();
        let score = solver
            .solve(&pos, Mode::Strong, Limits::none())
            .expect("a search without limits finishes");
        micros += start.elapsed().as_nanos() as f64 / 1000.0;
        nodes += solver.nodes() as f64;
        positions += 1;
        if score != expected {
            wrong.push(format!("{moves}: {score}, expected {expected}"));
        }
    }
    let n = positions.max(1) as f64;
    Ok(SetResult {
        positions,
        wrong,
        mean_micros: micros / n,
        mean_nodes: nodes / n,
    })
}

fn bench(args: &[String], out: &mut impl Write) -> anyhow::Result<()> {
    let mut dir = None;
    let mut limit = usize::MAX;
    let mut use_book = false;
    let mut bits = DEFAULT_TABLE_BITS;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--limit" => {
                limit = number(args, i + 1, "--limit")?;
                i += 1;
            }
            "--table-bits" => {
                bits = table_bits(args, i + 1)?;
                i += 1;
            }
            "--book" => use_book = true,
            other if !other.starts_with("--") && dir.is_none() => dir = Some(PathBuf::from(other)),
            other => bail!("connect4 bench: unknown option `{other}`\n{HELP}"),
        }
        i += 1;
    }
    let dir = match dir {
        Some(d) => d,
        None => {
            let d = PathBuf::from("../shared/data/connect4");
            if !d.is_dir() {
                bail!(
                    "connect4 bench: no DIR given and {} does not exist",
                    d.display()
                );
            }
            d
        }
    };
    let mut solver = Solver::new(bits);
    solver.set_book(use_book);
    writeln!(
        out,
        "{:<11} {:<14} {:>9} {:>14} {:>14}",
        "set", "name", "positions", "mean µs", "mean nodes"
    )?;
    let mut all_right = true;
    for (file, name) in SETS {
        let result = run_set(&mut solver, &dir.join(file), limit)?;
        writeln!(
            out,
            "{file:<11} {name:<14} {:>9} {:>14.1} {:>14.1}",
            result.positions, result.mean_micros, result.mean_nodes
        )?;
        for w in &result.wrong {
            writeln!(out, "  wrong: {w}")?;
        }
        all_right &= result.wrong.is_empty();
        out.flush()?;
    }
    if !all_right {
        bail!("connect4 bench: some scores are wrong");
    }
    Ok(())
}

fn make_book(args: &[String], out: &mut impl Write) -> anyhow::Result<()> {
    let mut ply = 5;
    let mut path = PathBuf::from("src/connect4/book-7x6.bin");
    let mut bits = 25;
    let mut from = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--from" => {
                from = Some(PathBuf::from(
                    args.get(i + 1).context("--from needs a file")?,
                ));
                i += 1;
            }
            "--ply" => {
                ply = number(args, i + 1, "--ply")?;
                i += 1;
            }
            "--out" => {
                path = PathBuf::from(args.get(i + 1).context("--out needs a file")?);
                i += 1;
            }
            "--table-bits" => {
                bits = table_bits(args, i + 1)?;
                i += 1;
            }
            other => bail!("connect4 book: unknown option `{other}`\n{HELP}"),
        }
        i += 1;
    }
    let mut solver = Solver::new(bits);
    let known = match &from {
        Some(f) => {
            let bytes = std::fs::read(f).with_context(|| format!("reading {}", f.display()))?;
            book::scores_of(&bytes)
        }
        None => Default::default(),
    };
    let mut report = |line: &str| {
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    };
    let bytes = book::generate(&mut solver, ply, known, &mut report);
    std::fs::write(&path, &bytes).with_context(|| format!("writing {}", path.display()))?;
    writeln!(
        out,
        "wrote {} ({} positions, {} bytes)",
        path.display(),
        (bytes.len() - 16) / 8,
        bytes.len()
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solve(input: &str, args: &[&str]) -> String {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let options = SolveOptions::parse(&args).expect("valid options");
        let mut out = Vec::new();
        solve_lines(&options, input.as_bytes(), &mut out).expect("in-memory I/O");
        String::from_utf8(out).expect("utf-8")
    }

    /// The answer lines without node counts and times.
    fn scores(output: &str) -> Vec<String> {
        output
            .lines()
            .map(|l| {
                if l.starts_with("error:") {
                    l.to_string()
                } else {
                    l.split(' ').take(2).collect::<Vec<_>>().join(" ")
                }
            })
            .collect()
    }

    #[test]
    fn bad_lines_are_reported_and_the_rest_solved() {
        let out = solve(
            "2252576253462244111563365343671351441 -1\n\
             448\n\
             1111111\n\
             12121213\n\
             4x\n\
             7422341735647741166133573473242566 1\n",
            &["--no-book"],
        );
        assert_eq!(
            scores(&out),
            vec![
                "2252576253462244111563365343671351441 -1",
                "error: 448: move 3: there is no column 8",
                "error: 1111111: move 7: column 1 is full",
                "error: 12121213: move 8: the game is already over",
                "error: 4x: move 2: `x` is not a column digit",
                "7422341735647741166133573473242566 1",
            ]
        );
        let fields: Vec<&str> = out.lines().next().expect("a line").split(' ').collect();
        assert_eq!(fields.len(), 4, "moves, score, nodes, microseconds");
        assert!(fields[2].parse::<u64>().is_ok() && fields[3].parse::<u64>().is_ok());
    }

    #[test]
    fn finished_games_and_weak_mode() {
        // The last move won: the side to move has lost to the opponent's 4th disc.
        let out = solve("1212121\n\n", &["--weak"]);
        assert_eq!(scores(&out), vec!["1212121 -1", " 1"]);
        let out = solve("1212121\n", &[]);
        assert_eq!(scores(&out), vec!["1212121 -18"]);
        assert!(SolveOptions::parse(&["--width".into(), "10".into()]).is_err());
        assert!(SolveOptions::parse(&["--frobnicate".into()]).is_err());
    }
}
