//! What every long command shares: the thread pool, and the progress bar of a solve.

use std::io::IsTerminal;
use std::time::Duration;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use retro_engine::Progress;

/// Runs `work` in a rayon pool of `threads` threads (all cores when `None`).
pub fn with_threads<T: Send>(threads: Option<usize>, work: impl FnOnce() -> T + Send) -> Result<T> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        anyhow::ensure!(n > 0, "--threads must be at least 1");
        builder = builder.num_threads(n);
    }
    let pool = builder.build().context("cannot start the thread pool")?;
    Ok(pool.install(work))
}

/// A progress display for the engine: a spinner with the generation and the positions resolved, on a terminal only
/// (nothing at all in pipes or with `--quiet`).
pub struct SolveProgress {
    bar: Option<ProgressBar>,
}

impl SolveProgress {
    pub fn new(what: &str, quiet: bool) -> SolveProgress {
        if quiet || !std::io::stderr().is_terminal() {
            return SolveProgress { bar: None };
        }
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {prefix} [{elapsed_precise}] {msg}")
                .expect("the template is valid"),
        );
        bar.set_prefix(what.to_string());
        bar.enable_steady_tick(Duration::from_millis(120));
        SolveProgress { bar: Some(bar) }
    }

    /// Shows one report of the engine.
    pub fn report(&self, progress: &Progress) {
        let Some(bar) = &self.bar else { return };
        let message = match *progress {
            Progress::Initialising { done, size } => {
                format!(
                    "initialising {done}/{size} ({:.0}%)",
                    100.0 * done as f64 / size.max(1) as f64
                )
            }
            Progress::Generation {
                generation,
                frontier,
                resolved,
            } => format!("generation {generation}: {frontier} new, {resolved} resolved"),
        };
        bar.set_message(message);
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
