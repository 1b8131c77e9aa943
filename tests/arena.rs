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

#[test]
fn shards_and_merge_through_the_binary() {
    let (ok, text) = run_match(&["merge", "--help"]);
    assert!(ok, "{text}");
    assert!(text.contains("--sprt"), "{text}");
    let dir = std::env::temp_dir().join(format!("wuzi-arena-bin-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fake = format!("arg={FAKE}");
    for k in 1..=2 {
        let shard = format!("{k}/2");
        let results = dir.join(format!("{k}.jsonl"));
        let results = results.to_str().unwrap();
        let (ok, text) = run_match(&[
            "--engine",
            "cmd=bash",
            &fake,
            "arg=normal",
            "name=a",
            "--engine",
            "cmd=bash",
            &fake,
            "arg=outside",
            "name=b",
            "--games",
            "4",
            "--turn",
            "300",
            "--shard",
            &shard,
            "--results",
            results,
        ]);
        assert!(ok, "{text}");
        assert!(text.contains("2 of 4 games (shard"), "{text}");
    }
    let (ok, text) = run_match(&["merge", "--sprt", "0,10", dir.to_str().unwrap()]);
    assert!(ok, "{text}");
    assert!(text.contains("Merged 4 of 4 games"), "{text}");
    assert!(text.contains("illegal move 4 (a 0, b 4)"), "{text}");
    assert!(text.contains("no verdict yet"), "{text}");
    let (ok, text) = run_match(&["merge", dir.join("none.jsonl").to_str().unwrap()]);
    assert!(!ok, "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
