//! Engine-vs-engine arena (`pbrain-wuzi match`). Being written (issue 3).

/// Entry point of `pbrain-wuzi match`.
pub fn main(_args: &[String]) -> anyhow::Result<()> {
    anyhow::bail!("`match` is not available in this build yet")
}
