//! `pbrain-wuzi`: with no argument, a Gomocup brain on stdin/stdout; `bench [depth]` prints the
//! deterministic node signature; `match …` runs the engine-vs-engine arena; `compare …` prints the
//! table of classic search algorithms; `play …` serves the board page.

use std::io::{self, Write};

use anyhow::{bail, Context};

const USAGE: &str = "\
usage: pbrain-wuzi            run as a Gomocup / Piskvork brain on stdin/stdout
       pbrain-wuzi --threads N  the same, searching with N threads until INFO thread_num says otherwise
       pbrain-wuzi match …    engine-vs-engine arena (pbrain-wuzi match --help)
       pbrain-wuzi compare …  classic search algorithms compared (pbrain-wuzi compare --help)
       pbrain-wuzi play …     the board page in the browser (pbrain-wuzi play --help)
       pbrain-wuzi connect4 … Connect Four solver, benchmark and book (pbrain-wuzi connect4 --help)
       pbrain-wuzi bench [D] [T]  bench positions on T threads (default 1) to depth D (default";

/// `pbrain-wuzi bench --help`, DEPTH's default appended after the first part.
const BENCH_USAGE: [&str; 2] = [
    "\
usage: pbrain-wuzi bench [DEPTH] [THREADS]

Searches the fixed bench positions (every rule, 15x15 and 20x20) to DEPTH (default ",
    ") on
THREADS threads (default 1), one line per position, then `<nodes> nodes <nps> nps`. The node
count on one thread is the engine's signature: the same on every run and machine, and the
`Bench:` footer of every commit that changes it.",
];

fn main() -> anyhow::Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => wuzi::session::run(io::stdin(), io::stdout()),
        Some("--threads") => {
            let threads = match args.get(1).map(|t| t.parse::<i64>()) {
                Some(Ok(t)) if t >= 1 => t,
                _ => bail!(
                    "--threads needs a positive number\n{USAGE} {})",
                    wuzi::bench::DEFAULT_DEPTH
                ),
            };
            wuzi::session::run_with_threads(io::stdin(), io::stdout(), threads)
        }
        Some("bench") if args[1..].iter().any(|a| a == "-h" || a == "--help") => {
            let stdout = io::stdout();
            let mut out = stdout.lock();
            let [head, tail] = BENCH_USAGE;
            writeln!(out, "{head}{}{tail}", wuzi::bench::DEFAULT_DEPTH)?;
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
        Some("match") => wuzi::arena::main(&args[1..]),
        Some("compare") => wuzi::compare::main(&args[1..]),
        Some("play") => wuzi::play::main(&args[1..]),
        Some("connect4") => wuzi::connect4::main(&args[1..]),
        Some("help" | "-h" | "--help") => {
            let stdout = io::stdout();
            let mut out = stdout.lock();
            writeln!(out, "{USAGE} {})", wuzi::bench::DEFAULT_DEPTH)?;
            Ok(())
        }
        Some(other) => bail!(
            "unknown argument `{other}`\n{USAGE} {})",
            wuzi::bench::DEFAULT_DEPTH
        ),
    }
}
