//! The classic search-algorithm comparison (`pbrain-wuzi compare`). Being written (issue 6).

/// Entry point of `pbrain-wuzi compare`.
pub fn main(_args: &[String]) -> anyhow::Result<()> {
    anyhow::bail!("`compare` is not available in this build yet")
}
