//! `pbrain-wuzi`: with no argument, a Gomocup brain on stdin/stdout; `bench [depth]` prints the
//! deterministic node signature; `match …` runs the engine-vs-engine arena; `compare …` prints the
//! table of classic search algorithms; `play …` serves the board page; `params` lists the
//! search's tunable constants.

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::{bail, Context};

const USAGE: &str = "\
usage: pbrain-wuzi            run as a Gomocup / Piskvork brain on stdin/stdout
       pbrain-wuzi --threads N  the same, searching with N threads until INFO thread_num says otherwise
       pbrain-wuzi match …    engine-vs-engine arena (pbrain-wuzi match --help)
       pbrain-wuzi compare …  classic search algorithms compared (pbrain-wuzi compare --help)
       pbrain-wuzi play …     the board page in the browser (pbrain-wuzi play --help)
       pbrain-wuzi connect4 … Connect Four solver, benchmark and book (pbrain-wuzi connect4 --help)
       pbrain-wuzi params     the search's tunable constants (INFO param_<name> <value>): name default min max step
       pbrain-wuzi bench [D] [T]  bench positions on T threads (default 1) to depth D (default {depth})";

/// `pbrain-wuzi bench --help`.
const BENCH_USAGE: &str = "\
usage: pbrain-wuzi bench [DEPTH] [THREADS]

Searches the fixed bench positions (every rule, 15x15 and 20x20) to DEPTH (default {depth}) on
THREADS threads (default 1), one line per position, then `<nodes> nodes <nps> nps`. The node
count on one thread is the engine's signature: the same on every run and machine, and the
`Bench:` footer of every commit that changes it.";

/// A usage text with the bench's default depth in place of `{depth}`.
fn usage(text: &str) -> String {
    text.replace("{depth}", &wuzi::bench::DEFAULT_DEPTH.to_string())
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    // The error and its causes on one line, without the backtrace that returning it from
    // `main` would add under RUST_BACKTRACE=1: a wrong argument is not a crash.
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => wuzi::session::run(io::stdin(), io::stdout()),
        Some("--threads") => {
            let threads = match args.get(1).map(|t| t.parse::<i64>()) {
                Some(Ok(t)) if t >= 1 => t,
                _ => bail!("--threads needs a positive number\n{}", usage(USAGE)),
            };
            wuzi::session::run_with_threads(io::stdin(), io::stdout(), threads)
        }
        Some("bench") if args[1..].iter().any(|a| a == "-h" || a == "--help") => {
            let stdout = io::stdout();
            let mut out = stdout.lock();
            writeln!(out, "{}", usage(BENCH_USAGE))?;
            Ok(())
        }
        Some("bench") => {
            let depth = match args.get(1) {
                Some(d) => d
                    .parse()
                    .with_context(|| format!("bench: depth must be a number, got `{d}`"))?,
                None => wuzi::bench::DEFAULT_DEPTH,
            };
            let threads = match args.get(2) {
                Some(t) => t
                    .parse()
                    .with_context(|| format!("bench: threads must be a number, got `{t}`"))?,
                None => 1,
            };
            let stdout = io::stdout();
            let mut out = stdout.lock();
            wuzi::bench::run_with_threads(depth, threads, &mut out)?;
            Ok(())
        }
        Some("params") => {
            let stdout = io::stdout();
            let mut out = stdout.lock();
            write!(out, "{}", wuzi::params::table())?;
            Ok(())
        }
        Some("match") => wuzi::arena::main(&args[1..]),
        Some("compare") => wuzi::compare::main(&args[1..]),
        Some("play") => wuzi::play::main(&args[1..]),
        Some("connect4") => wuzi::connect4::main(&args[1..]),
        Some("help" | "-h" | "--help") => {
            let stdout = io::stdout();
            let mut out = stdout.lock();
            writeln!(out, "{}", usage(USAGE))?;
            Ok(())
        }
        Some(other) => bail!("unknown argument `{other}`\n{}", usage(USAGE)),
    }
}
