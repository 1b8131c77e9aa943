//! `scripts/spsa.py` against the built binary: a few iterations of fixed-depth games (so the
//! games, and so the tuned values, are the same on every run), the state file it keeps, a
//! resumed run, and the refusal of an unknown parameter.

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_pbrain-wuzi");
const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/spsa.py");

fn openings(dir: &Path) -> PathBuf {
    let path = dir.join("openings.txt");
    std::fs::write(
        &path,
        "0,0, 1,0, 1,1\n0,0, 0,1, -1,1\n1,1, 0,0, 2,0\n-1,0, 0,0, 1,1\n",
    )
    .expect("openings written");
    path
}

/// Runs the script; returns (success, stdout + stderr).
fn spsa(state: &Path, openings: &Path, params: &str, iterations: u32) -> (bool, String) {
    let out = Command::new("python3")
        .arg(SCRIPT)
        .args(["--engine", BIN, "--params", params, "--seed", "5"])
        .args(["--iterations", &iterations.to_string(), "--state"])
        .arg(state)
        .args(["--", "--rule", "0", "--size", "15", "--each", "depth=2"])
        .args(["--turn", "2s", "--order", "random", "--openings"])
        .arg(openings)
        .output()
        .expect("python3 runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wuzi-spsa-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// The value of `"name": value` in the state file's JSON.
fn value(state: &str, name: &str) -> f64 {
    let key = format!("\"{name}\": ");
    let at = state
        .find(&key)
        .unwrap_or_else(|| panic!("{name} in {state}"))
        + key.len();
    let end = state[at..]
        .find(&[',', '\n', '}'][..])
        .expect("end of value");
    state[at..at + end].trim().parse().expect("a number")
}

#[test]
fn spsa_iterates_deterministically_and_resumes() {
    let dir = temp_dir("run");
    let book = openings(&dir);
    let params = "rfp_margin,lmr_first_move";
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));

    let (ok, text) = spsa(&a, &book, params, 3);
    assert!(ok, "{text}");
    for k in 1..=3 {
        assert!(text.contains(&format!("iteration {k}/3: plus ")), "{text}");
    }
    assert_eq!(text.matches("in 2 games").count(), 3, "{text}");
    let first = std::fs::read_to_string(&a).expect("state written");
    assert_eq!(value(&first, "iteration"), 3.0, "{first}");
    let margin = value(&first, "rfp_margin");
    let lmr = value(&first, "lmr_first_move");
    assert!((0.0..=2000.0).contains(&margin), "{first}");
    assert!((1.0..=20.0).contains(&lmr), "{first}");
    assert!(
        !first.contains("futility"),
        "only the named parameters: {first}"
    );

    // The same seed and fixed-depth games give the same values.
    let (ok, text) = spsa(&b, &book, params, 3);
    assert!(ok, "{text}");
    assert_eq!(std::fs::read_to_string(&b).expect("state"), first);

    // A longer run on the same state goes on from iteration 4.
    let (ok, text) = spsa(&a, &book, params, 4);
    assert!(ok, "{text}");
    assert!(!text.contains("iteration 3/"), "{text}");
    assert!(text.contains("iteration 4/4: plus "), "{text}");
    assert_eq!(
        value(&std::fs::read_to_string(&a).expect("state"), "iteration"),
        4.0
    );

    let (ok, text) = spsa(&dir.join("c.json"), &book, "rfp_margin,no_such", 1);
    assert!(!ok, "{text}");
    assert!(text.contains("no such parameter: no_such"), "{text}");
    assert!(!dir.join("c.json").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
