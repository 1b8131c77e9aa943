//! End-to-end checks of `pbrain-wuzi match` through the built binary: the help text, and a
//! short match of our engine against itself and against a misbehaving fake brain.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_pbrain-wuzi");
const FAKE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/arena/testdata/fake-brain.sh"
);

fn run_match(args: &[&str]) -> (bool, String) {
    let out = Command::new(BIN)
        .arg("match")
        .args(args)
        .output()
        .expect("pbrain-wuzi runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn help_documents_the_options() {
    let (ok, text) = run_match(&["--help"]);
    assert!(ok, "{text}");
    for option in [
        "--engine",
        "--sprt",
        "--turn",
        "--tolerance",
        "--openings",
        "--sgf",
    ] {
        assert!(text.contains(option), "{option}: {text}");
    }
}

#[test]
fn bad_options_fail_cleanly() {
    let (ok, text) = run_match(&["--engine", "cmd=bash"]);
    assert!(!ok);
    assert!(text.contains("two --engine"), "{text}");
}

#[test]
fn wuzi_plays_itself_and_a_fake() {
    let cmd = format!("cmd={BIN}");
    let fake = format!("arg={FAKE}");
    let (ok, text) = run_match(&[
        "--engine",
        &cmd,
        "name=wuzi",
        "--engine",
        &cmd,
        "--games",
        "2",
        "--turn",
        "50",
        "--draw-after",
        "30",
    ]);
    assert!(ok, "{text}");
    assert!(text.contains("Finished 2 games"), "{text}");
    assert!(text.contains("time forfeit 0, crash 0"), "{text}");
    assert!(text.contains("wuzi vs pbrain-wuzi"), "{text}");
    let (ok, text) = run_match(&[
        "--engine",
        &cmd,
        "name=wuzi",
        "--engine",
        "cmd=bash",
        &fake,
        "arg=outside",
        "name=fake",
        "--games",
        "2",
        "--turn",
        "50",
    ]);
    assert!(ok, "{text}");
    assert!(text.contains("illegal move 2 (wuzi 0, fake 2)"), "{text}");
}
