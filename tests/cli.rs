//! The command line's `--help` after a subcommand: the usage on stdout, exit status 0; a wrong
//! argument: one `error:` line and the usage on stderr, a failing exit status, no backtrace.

use std::process::Command;

fn run(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pbrain-wuzi"))
        .args(args)
        .output()
        .expect("the binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// How the usage texts state the bench's default depth.
fn default_depth() -> String {
    format!("(default {})", wuzi::bench::DEFAULT_DEPTH)
}

#[test]
fn bench_help_prints_its_usage() {
    for help in ["--help", "-h"] {
        let (ok, text) = run(&["bench", help]);
        assert!(ok, "{help}: {text}");
        assert!(
            text.contains("pbrain-wuzi bench [DEPTH] [THREADS]"),
            "{text}"
        );
        assert!(text.contains(&default_depth()), "{text}");
    }
    let (ok, _) = run(&["bench", "deep"]);
    assert!(!ok, "a depth that is not a number fails");
}

#[test]
fn connect4_help_after_a_command_prints_its_usage() {
    for args in [
        &["connect4", "bench", "--help"][..],
        &["connect4", "solve", "-h"],
        &["connect4", "book", "--help"],
        &["connect4", "--help"],
    ] {
        let (ok, text) = run(args);
        assert!(ok, "{args:?}: {text}");
        assert!(text.contains("connect4 bench [DIR]"), "{args:?}: {text}");
    }
}

#[test]
fn a_wrong_argument_is_an_error_line_not_a_backtrace() {
    for args in [&["frobnicate"][..], &["bench", "deep"], &["--threads", "0"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_pbrain-wuzi"))
            .args(args)
            .env("RUST_BACKTRACE", "1")
            .output()
            .expect("the binary runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}: nothing on stdout");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(!err.contains("backtrace"), "{args:?}: {err}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_pbrain-wuzi"))
        .arg("frobnicate")
        .output()
        .expect("the binary runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("usage: pbrain-wuzi"), "{err}");
    assert!(err.contains(&default_depth()), "{err}");
}
